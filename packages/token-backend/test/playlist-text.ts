/**
 * A playlist answer's text, decoded from its bytes: `Response.text()` on
 * `application/vnd.apple.mpegurl` makes workerd warn that the body does not look like text.
 */
export async function playlistText(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer())
}
