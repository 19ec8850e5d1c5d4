/**
 * The accounts every dataset shares: one reseller and its clients. The dev credentials of
 * `.dev.vars.example` and the login users belong to them.
 */
export const RESELLER_ID = 5000
export const DEV_CLIENT_ID = 1001
/**
 * A second client of the reseller with its own credentials (`SECOND_CLIENT_API_KEYS`) and its own
 * resources, so what belongs to one client account can be shown not to reach another.
 */
export const SECOND_CLIENT_ID = 1002

/** The reseller's clients: ids and company names. */
export const CLIENTS: readonly { id: number; company_name: string }[] = [
  { id: 1001, company_name: 'Northwind Media' },
  { id: 1002, company_name: 'Contoso Streaming' },
  { id: 1003, company_name: 'Fabrikam Games' },
  { id: 1004, company_name: 'Tailspin Toys' },
  { id: 1005, company_name: 'Wide World Importers' },
  { id: 1006, company_name: 'Adventure Works' },
  { id: 1007, company_name: 'Litware Labs' },
  { id: 1008, company_name: 'Proseware Cloud' },
  { id: 1009, company_name: 'Lucerne Publishing' },
  { id: 1010, company_name: 'Blue Yonder Air' },
  { id: 1011, company_name: 'Coho Winery' },
  { id: 1012, company_name: 'Fourth Coffee' },
]

/** Cloud regions (id, name). */
export const REGIONS: readonly { id: number; name: string }[] = [
  { id: 1, name: 'Luxembourg-2' },
  { id: 2, name: 'Frankfurt' },
  { id: 3, name: 'Singapore' },
]

/** A login user of the emulator (spec 4.9). Passwords are documented dev values. */
export interface LoginUser {
  username: string
  password: string
  clientId: number
  kind: 'client' | 'reseller'
  /** Base32 TOTP secret when two-factor authentication is on. */
  totpSecret?: string
}

/**
 * The login users: a client, a reseller, the second client and a client with 2FA (the first three
 * documented in docs/api-emulator.md).
 */
export const LOGIN_USERS: readonly LoginUser[] = [
  {
    username: 'user@example.com',
    password: 'emulator-password',
    clientId: DEV_CLIENT_ID,
    kind: 'client',
  },
  {
    username: 'reseller@example.com',
    password: 'emulator-password',
    clientId: RESELLER_ID,
    kind: 'reseller',
  },
  {
    username: 'second@example.com',
    password: 'emulator-password',
    clientId: SECOND_CLIENT_ID,
    kind: 'client',
  },
  {
    username: '2fa@example.com',
    password: 'emulator-password',
    clientId: DEV_CLIENT_ID,
    kind: 'client',
    totpSecret: 'JBSWY3DPEHPK3PXP',
  },
]
