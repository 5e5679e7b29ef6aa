import { describe, expect, it } from 'vitest'
import { casedKey, isCaseSignificant, isSentenceStart } from './letter-case.ts'
import { buildMatcher, type MatcherEntry } from './matcher.ts'

interface Kind {
  kind: 'preferred' | 'admitted' | 'deprecated'
}

/** A matcher over terms: each term is a list of [notation, kind]; an entry's id is `term:notation`. */
function glossary(...terms: [string, Kind['kind']][][]) {
  const entries: MatcherEntry<Kind>[] = terms.flatMap((notations, t) =>
    notations.map(([text, kind]) => ({ id: `${t}:${text}`, text, owner: t, payload: { kind } })),
  )
  return buildMatcher(entries)
}

/** Each use as [written, ids of the entries it refers to, wrong case?]. */
function uses(matcher: ReturnType<typeof glossary>, text: string): [string, string[], boolean][] {
  return matcher.scan(text).map((m) => [m.text, m.entries.map((e) => String(e.id)), m.wrongCase])
}

const github = glossary([
  ['GitHub', 'preferred'],
  ['Github', 'deprecated'],
])

describe('notations that differ only by case', () => {
  it('are told apart by the case of the use', () => {
    expect(uses(github, 'We use GitHub, not Github.')).toEqual([
      ['GitHub', ['0:GitHub'], false],
      ['Github', ['0:Github'], false],
    ])
  })

  it('take a sentence-initial capital as the notation it is, if listed, else as its lower-case notation', () => {
    // `Github` at a sentence start is still the deprecated `Github`.
    expect(uses(github, 'Github is a host. Github는 호스트다.')).toEqual([
      ['Github', ['0:Github'], false],
      ['Github', ['0:Github'], false],
    ])
    const vora = glossary([
      ['voratixel', 'preferred'],
      ['VoraTixel', 'deprecated'],
    ])
    expect(uses(vora, 'Voratixel works. So does voratixel; VoraTixel does not.')).toEqual([
      ['Voratixel', ['0:voratixel'], false],
      ['voratixel', ['0:voratixel'], false],
      ['VoraTixel', ['0:VoraTixel'], false],
    ])
    // Mid-sentence, a capital that no notation has is the wrong case (case carries meaning in this term).
    expect(uses(vora, 'we like Voratixel and VORATIXEL')).toEqual([
      ['Voratixel', ['0:voratixel', '0:VoraTixel'], true],
      ['VORATIXEL', ['0:voratixel', '0:VoraTixel'], true],
    ])
  })

  it('keep folding width, compatibility forms and whitespace', () => {
    expect(uses(github, 'ＧｉｔＨｕｂ and Git\u00a0Hub? no: ＧｉｔＨｕｂ')).toEqual([
      ['ＧｉｔＨｕｂ', ['0:GitHub'], false],
      ['ＧｉｔＨｕｂ', ['0:GitHub'], false],
    ])
    const phrase = glossary([
      ['mavou quodoun', 'preferred'],
      ['Mavou Quodoun', 'deprecated'],
    ])
    expect(uses(phrase, 'the mavou\n quodoun and the Mavou   Quodoun')).toEqual([
      ['mavou\n quodoun', ['0:mavou quodoun'], false],
      ['Mavou   Quodoun', ['0:Mavou Quodoun'], false],
    ])
  })
})

describe('wrong case', () => {
  it('reports a use whose case-significant word is written otherwise', () => {
    const only = glossary([['GitHub', 'preferred']], [['JavaScript', 'preferred']], [['iOS', 'preferred']])
    expect(uses(only, 'on GITHUB and Github with Javascript for IOS; GitHub, JavaScript, iOS')).toEqual([
      ['GITHUB', ['0:GitHub'], true],
      ['Github', ['0:GitHub'], true],
      ['Javascript', ['1:JavaScript'], true],
      ['IOS', ['2:iOS'], true],
      ['GitHub', ['0:GitHub'], false],
      ['JavaScript', ['1:JavaScript'], false],
      ['iOS', ['2:iOS'], false],
    ])
  })

  it('compares words without inner capitals without case', () => {
    const gateway = glossary([['API Gateway', 'preferred']])
    expect(uses(gateway, 'an API gateway, an api gateway, an Api Gateway')).toEqual([
      ['API gateway', ['0:API Gateway'], false],
      ['api gateway', ['0:API Gateway'], true],
      ['Api Gateway', ['0:API Gateway'], true],
    ])
    // No case-significant word and no case-distinct notation: case-insensitive as before.
    const plain = glossary([['data pipeline', 'preferred']])
    expect(uses(plain, 'DATA PIPELINE, Data Pipeline')).toEqual([
      ['DATA PIPELINE', ['0:data pipeline'], false],
      ['Data Pipeline', ['0:data pipeline'], false],
    ])
  })

  it('never takes a capital first letter at a sentence start as a case error', () => {
    const ios = glossary([['iOS', 'preferred']])
    expect(uses(ios, 'IOS is an OS. - IOS\n## IOS, but not IOS here')).toEqual([
      ['IOS', ['0:iOS'], false],
      ['IOS', ['0:iOS'], false],
      ['IOS', ['0:iOS'], false],
      ['IOS', ['0:iOS'], true],
    ])
  })

  it('treats dotted acronyms as one case-significant word', () => {
    const lfd = glossary([
      ['LFD', 'preferred'],
      ['lfd', 'deprecated'],
      ['Lfd', 'deprecated'],
      ['L.F.D', 'deprecated'],
    ])
    expect(uses(lfd, 'LFD, lfd, Lfd, L.F.D. and l.f.d or lFd')).toEqual([
      ['LFD', ['0:LFD'], false],
      ['lfd', ['0:lfd'], false],
      ['Lfd', ['0:Lfd'], false],
      ['L.F.D', ['0:L.F.D'], false],
      ['l.f.d', ['0:L.F.D'], true],
      ['lFd', ['0:LFD', '0:lfd', '0:Lfd'], true],
    ])
    expect(isCaseSignificant('L.F.D')).toBe(true)
    expect(isCaseSignificant('Gateway')).toBe(false)
  })
})

describe('Korean and mixed text', () => {
  it('leaves Korean untouched by case', () => {
    const term = glossary([
      ['용어', 'preferred'],
      ['술어', 'deprecated'],
    ])
    expect(uses(term, '용어를 쓰고 술어는 쓰지 않는다.')).toEqual([
      ['용어', ['0:용어'], false],
      ['술어', ['0:술어'], false],
    ])
  })

  it('decides Latin inside Korean text with particles attached', () => {
    expect(uses(github, '깃허브 대신 GitHub를 쓰고 Github는 쓰지 않는다. github에서도')).toEqual([
      ['GitHub', ['0:GitHub'], false],
      ['Github', ['0:Github'], false],
      ['github', ['0:GitHub', '0:Github'], true],
    ])
    const mixed = glossary([['API 게이트웨이', 'preferred']])
    expect(uses(mixed, '요청은 API 게이트웨이를 거친다. api 게이트웨이에서')).toEqual([
      ['API 게이트웨이', ['0:API 게이트웨이'], false],
      ['api 게이트웨이', ['0:API 게이트웨이'], true],
    ])
  })
})

describe('notations of different terms that differ only by case', () => {
  it('let the case of the use pick the term, and prefer a term that accepts the case', () => {
    const us = glossary([['US', 'preferred']], [['us', 'preferred']])
    expect(uses(us, 'US law binds us. Us too, and Contact Us.')).toEqual([
      ['US', ['0:US'], false],
      ['us', ['1:us'], false],
      ['Us', ['1:us'], false],
      ['Us', ['1:us'], false],
    ])
  })

  it('report a notation both terms write alike for both', () => {
    const pr = glossary([['PR', 'preferred']], [['PR', 'admitted']])
    expect(uses(pr, 'a PR')).toEqual([['PR', ['0:PR', '1:PR'], false]])
  })
})

describe('lookup', () => {
  it('follows the same rule, outside any sentence', () => {
    expect(github.lookup('Github')).toMatchObject({ wrongCase: false, entries: [{ id: '0:Github' }] })
    expect(github.lookup(' GitHub ')).toMatchObject({ wrongCase: false, entries: [{ id: '0:GitHub' }] })
    expect(github.lookup('GITHUB')?.wrongCase).toBe(true)
    expect(github.lookup('gitlab')).toBeUndefined()
  })
})

describe('helpers', () => {
  it('computes the cased form: NFKC and spaces folded, case kept', () => {
    expect(casedKey('  Git\u3000Hub ')).toBe('Git Hub')
    expect(casedKey('ＧｉｔＨｕｂ')).toBe('GitHub')
  })

  it('finds sentence starts', () => {
    const text = 'Go. "Next one" (again) - item\nline and mid'
    const at = (word: string) => isSentenceStart(text, text.indexOf(word))
    expect([at('Go'), at('Next'), at('again'), at('item'), at('line'), at('mid'), at('one')]).toEqual([
      true,
      true,
      false,
      false,
      true,
      false,
      false,
    ])
  })

  it('does not take the full stop of e.g., i.e., cf., vs. or Dr. as a sentence end, but does after etc.', () => {
    const text =
      'Use e.g. Alpha, i.e. Beta, cf. Gamma, vs. Delta, Dr. Epsilon, E.G. Zeta; all, etc. Eta. Meg. Theta'
    const at = (word: string) => isSentenceStart(text, text.indexOf(word))
    expect(
      ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta', 'Eta', 'Theta'].map((w) => [w, at(w)]),
    ).toEqual([
      ['Alpha', false],
      ['Beta', false],
      ['Gamma', false],
      ['Delta', false],
      ['Epsilon', false],
      ['Zeta', false],
      ['Eta', true],
      // "Meg." is a word that only ends like "e.g.": a sentence end
      ['Theta', true],
    ])
  })

  it('looks through the hidden parts of a Markdown text (U+FFFC) as through markup', () => {
    const text = '\ufffc\ufffc\ufffc Alpha. \ufffc\ufffc Beta and \ufffc Gamma'
    const at = (word: string) => isSentenceStart(text, text.indexOf(word))
    expect([at('Alpha'), at('Beta'), at('Gamma')]).toEqual([true, true, false])
  })
})
