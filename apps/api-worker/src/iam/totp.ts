/**
 * RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits) with WebCrypto: the emulator's two-factor users
 * check real one-time passwords, so a client's 2FA flow can be exercised end to end.
 */

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

const base32Decode = (text: string): Uint8Array => {
  const clean = text.replace(/=+$/, '').toUpperCase()
  const bytes: number[] = []
  let bits = 0
  let value = 0
  for (const char of clean) {
    const index = BASE32.indexOf(char)
    if (index === -1) throw new TypeError('invalid base32')
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return new Uint8Array(bytes)
}

/**
 * The TOTP code of `secret` (base32) for the 30-second step containing `atMs`.
 *
 * @example
 * ```ts
 * await totp('JBSWY3DPEHPK3PXP', Date.now()) // '492039' (changes every 30 s)
 * ```
 */
export async function totp(secret: string, atMs: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    base32Decode(secret),
    { name: 'HMAC', hash: 'SHA-1' },
    false,
    ['sign'],
  )
  const counter = new DataView(new ArrayBuffer(8))
  counter.setBigUint64(0, BigInt(Math.floor(atMs / 30_000)))
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, counter.buffer))
  const offset = (mac[19] ?? 0) & 0x0f
  const code =
    (((mac[offset] ?? 0) & 0x7f) << 24) |
    ((mac[offset + 1] ?? 0) << 16) |
    ((mac[offset + 2] ?? 0) << 8) |
    (mac[offset + 3] ?? 0)
  return String(code % 1_000_000).padStart(6, '0')
}

/**
 * Whether `code` is valid now, allowing one step of clock drift either way (as most servers do).
 *
 * @example
 * ```ts
 * await verifyTotp('JBSWY3DPEHPK3PXP', code, Date.now())
 * ```
 */
export async function verifyTotp(secret: string, code: string, nowMs: number): Promise<boolean> {
  for (const drift of [-30_000, 0, 30_000])
    if ((await totp(secret, nowMs + drift)) === code) return true
  return false
}
