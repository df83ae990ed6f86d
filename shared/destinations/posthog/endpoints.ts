/** PostHog's US cloud ingestion host: where events go unless the configuration names another. */
export const US_CLOUD = 'https://us.i.posthog.com';
