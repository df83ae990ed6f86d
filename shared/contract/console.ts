/**
 * The console's static site, as served locally (infra/local/console-site.ts) and by CloudFront
 * (infra/stacks/console-site.ts): the same security headers in both. `apiOrigin` is the control plane's
 * origin, the only one the page may call.
 */
export function consoleSecurityHeaders(apiOrigin: string) {
  return {
    contentSecurityPolicy: `default-src 'self'; connect-src 'self' ${apiOrigin}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'`,
    referrerPolicy: 'no-referrer',
  } as const;
}
