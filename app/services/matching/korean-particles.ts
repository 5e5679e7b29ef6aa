/**
 * Korean particles (조사), copula endings (이다 forms) and the commonest 하다/되다 endings: the Hangul
 * strings allowed to follow a Korean notation directly ("용어를", "회사에서는", "정의한다").
 *
 * Generated as a small grammar instead of a hand-written list of hundreds:
 *   [들] ( TERMINAL | STACKABLE [AUX [FINAL]] | COPULA )   or a 하다/되다 form
 * where FINAL only follows the auxiliaries that can themselves take a particle (까지만, 부터는,
 * 만의). Vowel harmony (은/는, 을/를) is not checked: after a Latin notation ("API를") it depends on
 * pronunciation, and real text gets it wrong often enough.
 */

const PLURAL = ['', '들']

/** Particles that end the particle stack. */
const TERMINAL = [
  '이',
  '가',
  '을',
  '를',
  '의',
  '은',
  '는',
  '도',
  '요',
  '이나',
  '나',
  '이라도',
  '라도',
  '조차',
  '마저',
]

/** Case particles and postpositions that an auxiliary particle may follow ("에서는", "으로도", "와의"). */
const STACKABLE = [
  '에',
  '에서',
  '에게',
  '에게서',
  '한테',
  '한테서',
  '께',
  '께서',
  '와',
  '과',
  '로',
  '으로',
  '로서',
  '으로서',
  '로써',
  '으로써',
  '로부터',
  '으로부터',
  '보다',
  '처럼',
  '같이',
  '만큼',
  '이랑',
  '랑',
  '하고',
  '마다',
  '까지',
  '부터',
  '만',
  '뿐',
  '대로',
]

/** Auxiliary particles after a stackable one. */
const AUX = [
  '은',
  '는',
  '도',
  '만',
  '의',
  '을',
  '를',
  '이',
  '가',
  '까지',
  '부터',
  '이나',
  '나',
  '라도',
  '이라도',
  '조차',
  '마저',
  '요',
]

/** Auxiliaries that take one more particle, and that particle. */
const AUX_STACKABLE = new Set(['만', '까지', '부터', '조차', '마저'])
const FINAL = ['의', '은', '는', '도', '을', '를', '이', '가']

/** Copula (이다) forms; after a vowel the 이 is often dropped ("용어다", "API였다"). */
const COPULA = [
  '이다',
  '다',
  '입니다',
  '입니까',
  '이며',
  '며',
  '이고',
  '인',
  '일',
  '임',
  '이면',
  '면',
  '이었다',
  '였다',
  '이었던',
  '였던',
  '이던',
  '이에요',
  '예요',
  '이야',
  '야',
  '이라',
  '라',
  '이라고',
  '라고',
  '이라는',
  '라는',
  '이란',
  '란',
  '인지',
  '인데',
  '이지만',
  '지만',
  '이므로',
  '이거나',
  '거나',
  '이든',
  '든',
  '이든지',
  '든지',
]

/** Sino-Korean nouns become verbs with 하다/되다 ("정의하다", "배포된"); the commonest endings. */
const HA_ENDINGS = [
  '다',
  'ㄴ다',
  '는',
  'ㄴ',
  'ㄹ',
  'ㅁ',
  '고',
  '며',
  '면',
  '지',
  '기',
  '게',
  '도록',
  'ㅂ니다',
  '었다',
  '었던',
  '었고',
  '었습니다',
  '어',
  '어서',
  '어야',
]

/** Add a final consonant (받침) given as a compatibility jamo to an open Hangul syllable. */
function withFinal(syllable: string, jamo: string): string {
  const FINALS: Record<string, number> = { ㄴ: 4, ㄹ: 8, ㅁ: 16, ㅂ: 17 }
  return String.fromCharCode(syllable.charCodeAt(0) + FINALS[jamo])
}

/** Conjugate 하/되 with an ending: jamo endings become the stem's final consonant; 하+어 → 해/하여, 되+어 → 돼/되어. */
function conjugate(stem: '하' | '되', ending: string): string[] {
  const first = ending[0]
  if (first === 'ㄴ' || first === 'ㄹ' || first === 'ㅁ' || first === 'ㅂ') {
    return [withFinal(stem, first) + ending.slice(1)]
  }
  if (first === '었' || first === '어') {
    const rest = ending.slice(1)
    const past = first === '었'
    if (stem === '하') return past ? ['했' + rest, '하였' + rest] : ['해' + rest, '하여' + rest]
    return past ? ['됐' + rest, '되었' + rest] : ['돼' + rest, '되어' + rest]
  }
  return [stem + ending]
}

function build(): Set<string> {
  const set = new Set<string>()
  for (const p of PLURAL) {
    set.add(p)
    for (const t of TERMINAL) set.add(p + t)
    for (const c of COPULA) set.add(p + c)
    for (const c of STACKABLE) {
      set.add(p + c)
      for (const a of AUX) {
        set.add(p + c + a)
        if (AUX_STACKABLE.has(a)) for (const f of FINAL) set.add(p + c + a + f)
      }
    }
  }
  for (const stem of ['하', '되'] as const) {
    for (const e of HA_ENDINGS) for (const form of conjugate(stem, e)) set.add(form)
  }
  set.delete('')
  return set
}

/** Every allowed particle/ending string (without the empty string). */
export const KOREAN_PARTICLES: ReadonlySet<string> = build()

/** Longest entry in code units: a Hangul run longer than this can not be a particle. */
export const MAX_PARTICLE_LENGTH: number = Math.max(...[...KOREAN_PARTICLES].map((s) => s.length))

/** True if `run` (a maximal run of Hangul syllables right after a notation) is a particle/ending. */
export function isKoreanParticle(run: string): boolean {
  return KOREAN_PARTICLES.has(run)
}

/** A trie node over UTF-16 code units: children plus whether a particle ends here. */
export interface ParticleNode {
  end: boolean
  next: Map<number, ParticleNode>
}

/** The same set as a trie, so the scanner can check a run in place without building a string. */
export const PARTICLE_TRIE: ParticleNode = (() => {
  const root: ParticleNode = { end: true, next: new Map() }
  for (const p of KOREAN_PARTICLES) {
    let node = root
    for (let k = 0; k < p.length; k++) {
      const c = p.charCodeAt(k)
      let child = node.next.get(c)
      if (!child) {
        child = { end: false, next: new Map() }
        node.next.set(c, child)
      }
      node = child
    }
    node.end = true
  }
  return root
})()
