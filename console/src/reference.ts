/**
 * Where the console site keeps a destination type's reference page (docs/reference/destinations/<page>.md,
 * rendered at build time by console/reference-pages.ts): `FACEBOOK_CONVERSIONS` → `facebook-conversions.html`.
 */
export const referencePage = (type: string) => `./reference/destinations/${type.toLowerCase().replace(/_/g, '-')}.html`;
