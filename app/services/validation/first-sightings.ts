/**
 * Which strings were seen once, as one bit per hash in a table of 2^20 bits (128 KB), for the lookup's memo
 * (lookup.server.ts): a text is remembered the second time it is asked. A set of the strings themselves kept
 * every text asked once alive until the set was cleared, so each outlived a young-generation collection and
 * was copied and promoted; and the set grew, rehashed and was cleared on the request's path. The bits
 * allocate nothing: over 2,000 rounds of 500 new texts, 50–74 µs a round instead of 75–134 µs at the median,
 * 88–185 µs instead of 0.95–1.5 ms at p99, and 22–29 ms of collector pauses in all instead of 91–144 ms
 * (`npx tsx bench/first-sightings.bench.ts`, four runs; decision 013, session 9).
 *
 * A string not seen reads as seen when another string set its bit: with at most `capacity` strings marked
 * (20,000 for the lookup: under 2% of the bits) that happens to about 1% of them, and for the memo it only means
 * remembering such a text the first time it is asked. Past `capacity` marks the table starts over.
 */
export class FirstSightings {
  private readonly bits = new Int32Array(1 << 15)
  private count = 0

  constructor(private readonly capacity: number) {}

  /** Marks `text` as seen; true when its bit was set already (seen before, or another string's bit). */
  seen(text: string): boolean {
    // FNV-1a over the UTF-16 code units, then murmur3's finalizer so the low 20 bits are well mixed.
    let h = 0x811c9dc5
    for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193)
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
    h ^= h >>> 16
    const word = (h >>> 5) & 0x7fff
    const bit = 1 << (h & 31)
    if (this.bits[word]! & bit) return true
    if (this.count >= this.capacity) {
      this.bits.fill(0)
      this.count = 0
    }
    this.bits[word]! |= bit
    this.count++
    return false
  }
}
