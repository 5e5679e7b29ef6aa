import { describe, expect, it } from 'vitest'
import { isKoreanParticle, KOREAN_PARTICLES } from './korean-particles.ts'
import { lineColumnAt } from './line-column.ts'
import { buildMatcher, type Match, type MatcherEntry } from './matcher.ts'

/** Matcher over plain notation strings; entry ids are the notations themselves. */
function matcherFor(...notations: string[]) {
  return buildMatcher(notations.map((text) => ({ id: text, text })))
}

/** Compact view of matches: [original text, start, end, first entry id]. */
function hits(notations: string[], text: string): [string, number, number, string | number][] {
  return matcherFor(...notations)
    .scan(text)
    .map((m) => [m.text, m.start, m.end, m.entries[0].id])
}

/** Just the matched original substrings. */
function found(notations: string[], text: string): string[] {
  return matcherFor(...notations)
    .scan(text)
    .map((m) => m.text)
}

describe('Latin boundaries', () => {
  it('matches whole words only', () => {
    expect(found(['API'], 'API, an API; (API) "API"')).toEqual(['API', 'API', 'API', 'API'])
    expect(found(['API'], 'RAPID APIs API_KEY API2 2API')).toEqual([])
  })

  it('treats an attached Korean particle as a boundary', () => {
    expect(hits(['API'], 'API를 호출한다')).toEqual([['API', 0, 3, 'API']])
    expect(found(['BullMQ'], 'BullMQ는 큐이다')).toEqual(['BullMQ'])
    expect(found(['data pipeline'], 'data pipeline에서 처리')).toEqual(['data pipeline'])
  })

  it('treats Hangul right before a Latin notation as a boundary', () => {
    expect(found(['API'], '새API')).toEqual(['API'])
  })

  it('treats accented Latin letters as word characters', () => {
    expect(found(['caf'], 'café')).toEqual([])
  })
})

describe('Korean boundaries', () => {
  it('matches a Korean notation followed by a particle', () => {
    expect(hits(['용어'], '용어를 정의한다')).toEqual([['용어', 0, 2, '용어']])
    expect(found(['용어'], '용어는 용어에서 용어들의 용어입니다 용어, 용어')).toHaveLength(6)
  })

  it('does not match in the middle of a Hangul word', () => {
    expect(found(['정보'], '개인정보')).toEqual([])
    expect(found(['정보'], '개인정보를')).toEqual([])
  })

  it('does not match at the start of a longer word unless the rest is a particle', () => {
    expect(found(['회사'], '회사원')).toEqual([])
    expect(found(['회사'], '회사는')).toEqual(['회사'])
    expect(found(['회사'], '회사에서')).toEqual(['회사'])
    expect(found(['회사'], '회사에서는 회사원들과')).toEqual(['회사'])
  })

  it('accepts 하다/되다 forms after Sino-Korean nouns', () => {
    expect(found(['정의'], '용어를 정의한다')).toEqual(['정의'])
    expect(found(['배포'], '배포된 버전, 배포했다, 배포자')).toEqual(['배포', '배포'])
  })

  it('matches Korean phrases with particles', () => {
    expect(found(['데이터 파이프라인'], '데이터 파이프라인에서 읽는다')).toEqual(['데이터 파이프라인'])
    expect(found(['데이터 파이프라인'], '빅데이터 파이프라인')).toEqual([])
  })

  it('matches Korean next to non-Hangul characters', () => {
    expect(found(['용어'], '(용어)"용어"용어.용어2 x용어')).toHaveLength(5)
  })
})

describe('mixed notations', () => {
  it('uses the first character rule on the left and the last character rule on the right', () => {
    expect(found(['API 게이트웨이'], 'API 게이트웨이를 둔다')).toEqual(['API 게이트웨이'])
    expect(found(['API 게이트웨이'], 'XAPI 게이트웨이')).toEqual([])
    expect(found(['API 게이트웨이'], 'API 게이트웨이원')).toEqual([])
    expect(found(['게이트웨이 API'], '새게이트웨이 API')).toEqual([])
    expect(found(['게이트웨이 API'], '게이트웨이 API를')).toEqual(['게이트웨이 API'])
    expect(found(['게이트웨이 API'], '게이트웨이 APIs')).toEqual([])
  })

  it('places no constraint on a punctuation edge', () => {
    expect(found(['.NET'], 'ASP.NET과 .NET을')).toEqual(['.NET', '.NET'])
    expect(found(['C++'], 'C++를 쓴다, C++x')).toEqual(['C++', 'C++'])
  })
})

describe('particle table', () => {
  it('contains the listed particles and generated combinations', () => {
    for (const p of [
      '이',
      '가',
      '은',
      '는',
      '을',
      '를',
      '의',
      '에',
      '에서',
      '에게',
      '께',
      '와',
      '과',
      '로',
      '으로',
      '도',
      '만',
    ]) {
      expect(isKoreanParticle(p), p).toBe(true)
    }
    for (const p of [
      '까지',
      '부터',
      '보다',
      '처럼',
      '이나',
      '나',
      '랑',
      '이랑',
      '하고',
      '이다',
      '입니다',
      '이며',
      '이고',
      '인',
      '들',
      '들은',
    ]) {
      expect(isKoreanParticle(p), p).toBe(true)
    }
    for (const p of [
      '에서는',
      '으로는',
      '에도',
      '까지는',
      '들의',
      '들을',
      '에서부터',
      '까지만의',
      '한다',
      '되었다',
    ]) {
      expect(isKoreanParticle(p), p).toBe(true)
    }
  })

  it('rejects ordinary word continuations', () => {
    for (const w of ['원', '자', '나무', '적', '화', '보호']) expect(isKoreanParticle(w), w).toBe(false)
    expect(KOREAN_PARTICLES.size).toBeLessThan(10_000)
  })
})

describe('normalization while matching', () => {
  it('matches full-width and lowercase forms', () => {
    expect(found(['API'], 'ＡＰＩ와 api와 Api')).toEqual(['ＡＰＩ', 'api', 'Api'])
    expect(found(['ａｐｉ'], 'API')).toEqual(['API'])
  })

  it('reports UTF-16 offsets after surrogate pairs', () => {
    const text = '😀😀 API를 👍🏽용어'
    const m = matcherFor('API', '용어').scan(text)
    expect(m.map((x) => [x.start, x.end])).toEqual([
      [5, 8],
      [14, 16],
    ])
    for (const x of m) expect(text.slice(x.start, x.end)).toBe(x.text)
  })

  it('is not shifted by NFKC length changes before a match', () => {
    const text = 'ﬁ ㈜ API ⑴ 용어를 … data pipeline'
    const m = matcherFor('API', '용어', 'data pipeline').scan(text)
    expect(m.map((x) => x.text)).toEqual(['API', '용어', 'data pipeline'])
    expect(m.map((x) => x.start)).toEqual([text.indexOf('API'), text.indexOf('용어'), text.indexOf('data')])
  })

  it('reports the whole original span of a changed notation', () => {
    expect(hits(['file'], 'a ﬁle here')).toEqual([['ﬁle', 2, 5, 'file']])
    expect(hits(['café'], 'the cafe\u0301.')).toEqual([['cafe\u0301', 4, 9, 'café']])
    expect(hits(['(주)'], '㈜한빛')).toEqual([['㈜', 0, 1, '(주)']])
  })

  it('matches phrases across a line break or several spaces, not across a paragraph break', () => {
    expect(found(['data pipeline'], 'data\npipeline, data  pipeline, data\r\n  pipeline')).toHaveLength(3)
    expect(found(['data pipeline'], 'data\n\npipeline')).toEqual([])
  })
})

describe('overlaps', () => {
  it('reports the longest match and hides matches contained in it', () => {
    expect(found(['pipeline', 'data pipeline', 'data'], 'the data pipeline runs; a pipeline; data')).toEqual([
      'data pipeline',
      'pipeline',
      'data',
    ])
  })

  it('reports partial overlaps both', () => {
    expect(found(['data pipeline', 'pipeline tool'], 'data pipeline tool')).toEqual([
      'data pipeline',
      'pipeline tool',
    ])
  })

  it('does not let a longer notation that fails its boundary hide a shorter one', () => {
    expect(found(['data', 'data pipeline'], 'data pipelines')).toEqual(['data'])
    expect(found(['정보', '정보보호'], '정보보호를 위한 정보보호원')).toEqual(['정보보호'])
  })

  it('applies containment across Korean and Latin', () => {
    expect(found(['API', 'API 게이트웨이', '게이트웨이'], 'API 게이트웨이에서 API와 게이트웨이')).toEqual([
      'API 게이트웨이',
      'API',
      '게이트웨이',
    ])
  })
})

describe('entries', () => {
  it('reports every entry that shares a normalized notation and the letter case of the use', () => {
    const entries: MatcherEntry<{ kind: string }>[] = [
      { id: 1, text: 'API', payload: { kind: 'preferred' } },
      { id: 2, text: 'api', payload: { kind: 'deprecated' } },
      { id: 3, text: 'ＡＰＩ', payload: { kind: 'admitted' } },
      { id: 4, text: 'REST API' },
    ]
    const m = buildMatcher(entries).scan('an API, an api')
    expect(m).toHaveLength(2)
    expect(m[0].notation).toBe('api')
    // Width folds (ＡＰＩ is API); letter case decides between API and api.
    expect(m[0].entries.map((e) => e.id)).toEqual([1, 3])
    expect(m[1].entries.map((e) => e.id)).toEqual([2])
    expect(m[1].entries[0].payload?.kind).toBe('deprecated')
  })

  it('skips notations that normalize to nothing and counts them', () => {
    const m = buildMatcher([
      { id: 1, text: '  ' },
      { id: 2, text: '' },
      { id: 3, text: 'x' },
    ])
    expect(m.stats).toMatchObject({ entries: 3, skipped: 2, notations: 1 })
  })
})

describe('edge cases', () => {
  it('empty matcher finds nothing', () => {
    const m = buildMatcher([])
    expect(m.scan('anything at all')).toEqual([])
    expect(m.stats.notations).toBe(0)
  })

  it('empty text gives no matches', () => {
    expect(matcherFor('API').scan('')).toEqual([])
  })

  it('matches at the very start and end of the text', () => {
    expect(found(['API', '용어'], 'API')).toEqual(['API'])
    expect(found(['API', '용어'], '용어')).toEqual(['용어'])
    expect(found(['a'], 'a')).toEqual(['a'])
  })

  it('can be reused across scans', () => {
    const m = matcherFor('API')
    expect(m.scan('API').length).toBe(1)
    expect(m.scan('no').length).toBe(0)
    expect(m.scan('API API').length).toBe(2)
  })
})

describe('line and column', () => {
  it('gives 1-based line and UTF-16 column in every match', () => {
    const text = 'first API\r\nsecond 😀API\rthird\n\nAPI를'
    const m: Match[] = matcherFor('API').scan(text)
    expect(m.map((x) => [x.line, x.column])).toEqual([
      [1, 7],
      [2, 10],
      [5, 1],
    ])
  })

  it('lineColumnAt handles offsets in any order in one pass', () => {
    const text = 'ab\ncd\r\nef'
    expect(lineColumnAt(text, [7, 0, 4, 3, 9])).toEqual([
      { line: 3, column: 1 },
      { line: 1, column: 1 },
      { line: 2, column: 2 },
      { line: 2, column: 1 },
      { line: 3, column: 3 },
    ])
    expect(lineColumnAt(text, [])).toEqual([])
  })
})
