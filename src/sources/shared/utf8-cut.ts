/**
 * The largest cut ≤ max at which `buf` (which may continue past its end) does not split a UTF-8
 * sequence: a character that straddles the cut, or that ends the buffer incomplete, is left
 * whole for the next piece. Bytes that are not UTF-8 are cut where asked.
 */
export function utf8Cut(buf: Uint8Array, max = buf.length): number {
  const cut = Math.min(max, buf.length);
  let lead = cut; // one past the last byte that is not a continuation byte
  while (lead > 0 && cut - lead < 3 && (buf[lead - 1]! & 0xc0) === 0x80) lead--;
  const first = buf[lead - 1];
  if (first === undefined || first < 0xc0) return cut; // ASCII, or no lead byte in reach
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : 2;
  const start = lead - 1;
  return start + length <= cut || start === 0 ? cut : start;
}
