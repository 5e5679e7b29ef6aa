/** The vocabulary of single sign-on, declared once (spec: "SSO configuration", "Browser redirects"). */

/** The active login method besides passwords. `oauth2-proxy` takes the identity from the proxy's headers. */
export const SSO_MODES = ['disabled', 'oidc', 'oauth2', 'oauth2-proxy'] as const
export type SsoMode = (typeof SSO_MODES)[number]

/** The two direct protocols (`protocol` of the `sso` object, kept for older clients; `POST /sso/discover`). */
export const SSO_PROTOCOLS = ['oidc', 'oauth2'] as const
export type SsoProtocol = (typeof SSO_PROTOCOLS)[number]

/** The SSO button's text until an administrator sets one; the login page shows it in the reader's language. */
export const DEFAULT_SSO_BUTTON_LABEL = 'Sign in with your company account'

/** Every code a failed browser sign-in sends to `/login?sso=<code>`; nothing else is ever sent. */
export const SSO_FAILURE_CODES = [
  'disabled',
  'state',
  'idp',
  'token',
  'no_subject',
  'no_email',
  'not_allowed',
  'no_account',
  'email_conflict',
  'identity_mismatch',
  'deactivated',
  'server',
] as const
export type SsoFailureCode = (typeof SSO_FAILURE_CODES)[number]

/** The headers oauth2-proxy sets (`--pass-user-headers` / `--set-xauthrequest` upstream names). */
export const PROXY_HEADERS = {
  email: 'x-forwarded-email',
  user: 'x-forwarded-user',
  groups: 'x-forwarded-groups',
  preferredUsername: 'x-forwarded-preferred-username',
} as const

/** The `user_identities.provider` of identities restored from proxy headers. */
export const PROXY_PROVIDER = 'oauth2-proxy'
