/**
 * A compact Aho-Corasick automaton over UTF-16 code units, stored in typed arrays.
 *
 * Layout (why it is small and fast):
 * - States are numbered in BFS order, so the children of a state are consecutive ids
 *   first[s] .. first[s + 1] - 1, sorted by character; no edge-target array is needed, only the
 *   incoming character of each state (`ch`). A transition is a short linear or binary search.
 * - The root, which has one child per distinct first character (thousands with Hangul), gets a direct
 *   65,536-entry table instead.
 * - `fail` is the usual failure link; `dict` points to the nearest terminal state on the failure chain
 *   (the dictionary suffix link), so reporting walks only states that really end a pattern.
 * - What a step touches is packed into one 16-byte record per state,
 *   [first child, end of children, pattern ending here or -1, first output state], so a step costs one
 *   cache line plus the children's characters. The matcher walks the trie from anchored positions and
 *   reads only the first three; this file's Aho-Corasick `scan` also follows `fail` and `dict`.
 * About 26 bytes per state plus 256 KiB for the root table.
 */

const NONE = -1

export interface Automaton {
  readonly patternCount: number
  readonly stateCount: number
  /** Bytes held by the typed arrays. */
  readonly byteSize: number
  /**
   * Report every occurrence of every pattern in units[0, length): onMatch(end, pattern) with end
   * exclusive. Order: by end ascending; at one end, longest pattern first.
   */
  scan(units: Uint16Array, length: number, onMatch: (end: number, pattern: number) => void): void
}

/**
 * Build an automaton for `patterns` (distinct, non-empty strings; pattern i is reported as i).
 * The trie is built with a temporary hash of edges, then frozen into the BFS layout described above.
 */
export function buildAutomaton(patterns: readonly string[]): Automaton {
  return automatonFromTables(compileAutomaton(patterns))
}

/**
 * The automaton as plain typed arrays: what a worker thread builds and transfers back without copying
 * (see compile-worker.ts), so a large rebuild never occupies the event loop that answers requests.
 */
export interface AutomatonTables extends Tables {
  patternCount: number
}

export function compileAutomaton(patterns: readonly string[]): AutomatonTables {
  return { ...buildTables(patterns), patternCount: patterns.length }
}

/** An automaton over tables made by `compileAutomaton` (here or in a worker thread). */
export function automatonFromTables(tables: AutomatonTables): Automaton {
  // Destructured so that the scan closure below holds only the arrays it reads.
  const { rec, ch, fail, dict, rootNext, stateCount, patternCount } = tables
  const byteSize = rec.byteLength + ch.byteLength + fail.byteLength + dict.byteLength + rootNext.byteLength
  return {
    patternCount,
    stateCount,
    byteSize,
    scan(units, length, onMatch) {
      let s = 0
      for (let i = 0; i < length; i++) {
        const c = units[i]
        // Transition with failure fallback (the hot loop; kept inline rather than calling `child`).
        for (;;) {
          if (s === 0) {
            s = rootNext[c]
            break
          }
          const r = s << 2
          let lo = rec[r]
          let hi = rec[r + 1]
          let next = 0
          if (hi - lo <= 8) {
            for (; lo < hi; lo++) {
              if (ch[lo] === c) {
                next = lo
                break
              }
            }
          } else {
            while (lo < hi) {
              const mid = (lo + hi) >>> 1
              const m = ch[mid]
              if (m === c) {
                next = mid
                break
              }
              if (m < c) lo = mid + 1
              else hi = mid
            }
          }
          if (next !== 0) {
            s = next
            break
          }
          s = fail[s]
        }
        let o = rec[(s << 2) + 3]
        while (o !== 0) {
          onMatch(i + 1, rec[(o << 2) + 2])
          o = dict[o]
        }
      }
    },
  }
}

interface Tables {
  /** Per state: [first child, end of children, pattern ending here or -1, first output state or 0]. */
  rec: Int32Array
  /** Per state: the character on its incoming edge (children of a state are consecutive and sorted). */
  ch: Uint16Array
  fail: Int32Array
  dict: Int32Array
  rootNext: Int32Array
  stateCount: number
}

/** Open-addressing map (parent state, character) → child state, used only while inserting. */
class EdgeTable {
  private mask: number
  private parents: Int32Array
  private chars: Uint16Array
  private children: Int32Array
  private size = 0

  constructor(expected: number) {
    let cap = 1024
    while (cap < expected * 2) cap *= 2
    this.mask = cap - 1
    this.parents = new Int32Array(cap).fill(-1)
    this.chars = new Uint16Array(cap)
    this.children = new Int32Array(cap)
  }

  private slot(parent: number, c: number): number {
    return (Math.imul(parent, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b)) & this.mask
  }

  /** The child of `parent` on `c`, or 0. */
  get(parent: number, c: number): number {
    for (let k = this.slot(parent, c); ; k = (k + 1) & this.mask) {
      const p = this.parents[k]
      if (p === -1) return 0
      if (p === parent && this.chars[k] === c) return this.children[k]
    }
  }

  set(parent: number, c: number, child: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow()
    let k = this.slot(parent, c)
    while (this.parents[k] !== -1) k = (k + 1) & this.mask
    this.parents[k] = parent
    this.chars[k] = c
    this.children[k] = child
    this.size++
  }

  private grow(): void {
    const { parents, chars, children } = this
    const cap = (this.mask + 1) * 2
    this.mask = cap - 1
    this.parents = new Int32Array(cap).fill(-1)
    this.chars = new Uint16Array(cap)
    this.children = new Int32Array(cap)
    this.size = 0
    for (let k = 0; k < parents.length; k++)
      if (parents[k] !== -1) this.set(parents[k], chars[k], children[k])
  }
}

function buildTables(patterns: readonly string[]): Tables {
  let totalChars = 0
  for (const p of patterns) {
    if (p.length === 0) throw new RangeError('empty pattern')
    totalChars += p.length
  }

  // 1. Trie with states numbered in insertion order (temporary arrays). A hash of edges avoids both
  // per-node Map objects and sorting the patterns.
  const cap = totalChars + 1
  const parent = new Int32Array(cap)
  const pch = new Uint16Array(cap)
  const pterm = new Int32Array(cap).fill(NONE)
  const edges = new EdgeTable(totalChars >> 1)
  let count = 1
  for (let pi = 0; pi < patterns.length; pi++) {
    const p = patterns[pi]
    let s = 0
    for (let d = 0; d < p.length; d++) {
      const c = p.charCodeAt(d)
      let t = edges.get(s, c)
      if (t === 0) {
        t = count++
        parent[t] = s
        pch[t] = c
        edges.set(s, c, t)
      }
      s = t
    }
    if (pterm[s] !== NONE) throw new RangeError(`duplicate pattern: ${p}`)
    pterm[s] = pi
  }
  const n = count

  // 2. Children lists (CSR), each sorted by character for the binary search in the scan.
  const childStart = new Int32Array(n + 1)
  for (let v = 1; v < n; v++) childStart[parent[v] + 1]++
  for (let v = 0; v < n; v++) childStart[v + 1] += childStart[v]
  const fillPos = childStart.slice(0, n)
  const children = new Int32Array(Math.max(1, n - 1))
  for (let v = 1; v < n; v++) children[fillPos[parent[v]]++] = v
  const packed = new Float64Array(0x10000)
  for (let u = 0; u < n; u++) {
    const lo = childStart[u]
    const hi = childStart[u + 1]
    if (hi - lo < 2) continue
    if (hi - lo <= 16) {
      // Insertion sort by character: most states have few children.
      for (let i = lo + 1; i < hi; i++) {
        const v = children[i]
        let j = i - 1
        while (j >= lo && pch[children[j]] > pch[v]) {
          children[j + 1] = children[j]
          j--
        }
        children[j + 1] = v
      }
    } else {
      // Wide fan-out: numeric sort of (character, state) packed into doubles.
      const m = hi - lo
      for (let i = 0; i < m; i++) packed[i] = pch[children[lo + i]] * 0x100000000 + children[lo + i]
      const view = packed.subarray(0, m).sort()
      for (let i = 0; i < m; i++) children[lo + i] = view[i] % 0x100000000
    }
  }

  // 3. Renumber in BFS order.
  const bfs = new Int32Array(n) // bfs[newId] = oldId
  const first = new Int32Array(n + 1)
  let tail = 1
  for (let head = 0; head < n; head++) {
    const old = bfs[head]
    first[head] = tail
    for (let k = childStart[old]; k < childStart[old + 1]; k++) bfs[tail++] = children[k]
  }
  first[n] = n
  const ch = new Uint16Array(n)
  const term = new Int32Array(n)
  const newParent = new Int32Array(n)
  const newId = new Int32Array(n)
  for (let v = 0; v < n; v++) newId[bfs[v]] = v
  for (let v = 0; v < n; v++) {
    const old = bfs[v]
    ch[v] = pch[old]
    term[v] = pterm[old]
    newParent[v] = v === 0 ? 0 : newId[parent[old]]
  }

  const rootNext = new Int32Array(0x10000)
  for (let v = first[0]; v < first[1]; v++) rootNext[ch[v]] = v

  /** Child of state s on character c, or 0. */
  const child = (s: number, c: number): number => {
    if (s === 0) return rootNext[c]
    let lo = first[s]
    let hi = first[s + 1]
    if (hi - lo <= 8) {
      for (; lo < hi; lo++) if (ch[lo] === c) return lo
      return 0
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const m = ch[mid]
      if (m === c) return mid
      if (m < c) lo = mid + 1
      else hi = mid
    }
    return 0
  }

  // 4. Failure and dictionary links, in BFS order (a parent is always done before its children).
  const fail = new Int32Array(n)
  const dict = new Int32Array(n)
  for (let v = 1; v < n; v++) {
    const u = newParent[v]
    if (u === 0) continue // depth 1: fail to root
    const c = ch[v]
    let f = fail[u]
    let target = 0
    for (;;) {
      target = child(f, c)
      if (target !== 0 || f === 0) break
      f = fail[f]
    }
    fail[v] = target
    dict[v] = term[target] !== NONE ? target : dict[target]
  }

  // 5. Pack what a step touches into one record per state, so it costs one cache line instead of three:
  // [first child, end of children, pattern ending here or -1, first output state or 0].
  const rec = new Int32Array(n * 4)
  for (let v = 0; v < n; v++) {
    rec[4 * v] = first[v]
    rec[4 * v + 1] = first[v + 1]
    rec[4 * v + 2] = term[v]
    rec[4 * v + 3] = term[v] !== NONE ? v : dict[v]
  }

  return { rec, ch, fail, dict, rootNext, stateCount: n }
}
