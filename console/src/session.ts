/**
 * The workspace token lives in this tab's session storage only: never in a URL, a cookie or a log, and gone
 * when the tab closes.
 */
const KEY = 'weir.token';

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  signIn: (token: string) => sessionStorage.setItem(KEY, token),
  signOut: () => sessionStorage.removeItem(KEY),
};
