import { describe, expect, it } from 'vitest'
import { MASK, maskMarkdown } from './markdown-mask.ts'

/** The text as the matcher sees it, with each run of hidden code units shown as `#`. */
const visible = (text: string) => maskMarkdown(text).replace(new RegExp(`${MASK}+`, 'g'), '#')

describe('maskMarkdown', () => {
  it('keeps the length and every line break, and leaves prose alone', () => {
    const text =
      '---\r\ntitle: GitHub\r\n---\r\n# Github 안내 😀\r\n\r\n```js\r\nconst github = 1\r\n```\r\nSee `github` at https://github.com/x.\r\n'
    const masked = maskMarkdown(text)
    expect(masked).toHaveLength(text.length)
    expect([...masked.matchAll(/\r\n/g)].map((m) => m.index)).toEqual(
      [...text.matchAll(/\r\n/g)].map((m) => m.index),
    )
    expect(maskMarkdown('Plain prose with Github, 결제를 and L.F.D.')).toBe(
      'Plain prose with Github, 결제를 and L.F.D.',
    )
  })

  it('hides front matter, fenced and indented code and HTML blocks', () => {
    expect(visible('---\ntitle: Github\n---\nGithub')).toBe('#\n#\n#\nGithub')
    expect(visible('Github\n\n```javascript\nconst github = 1\n```\n\nGithub')).toBe(
      'Github\n\n#\n#\n#\n\nGithub',
    )
    expect(visible('Github\n\n    github --version\n\nGithub')).toBe('Github\n\n#\n\nGithub')
    expect(visible('<div class="x">\nGithub\n</div>\n\nGithub')).toBe('#\n#\n#\n\nGithub')
    // a list item's continuation is not code
    expect(visible('- item\n\n    Github here\n')).toBe('- item\n\n    Github here\n')
  })

  it('hides code spans as CommonMark pairs backtick runs', () => {
    expect(visible('Use `github` and ``a ` github`` now')).toBe('Use # and # now')
    expect(visible('An open ` github and `` more')).toBe('An open ` github and `` more')
    expect(visible('Escaped \\`github` here` end')).toBe('Escaped \\`github# end')
    // a blank line ends the paragraph: no span across it
    expect(visible('a `github\n\ngithub` b')).toBe('a `github\n\ngithub` b')
    expect(visible('a `git\nhub` b')).toBe('a #\n# b')
  })

  it('hides URLs, link destinations and titles, autolinks, inline HTML and reference definitions, not link text', () => {
    expect(visible('[GitHub](https://github.com/a "Github docs") and ![Github logo](/img/github.png)')).toBe(
      '[GitHub](# #) and ![Github logo](#)',
    )
    expect(visible('Visit https://github.com/a/b, or www.github.com. Mail <x@github.com>.')).toBe(
      'Visit #, or #. Mail #.',
    )
    expect(visible('Go to <https://github.com>; <span class="x">Github</span> <!-- github -->')).toBe(
      'Go to #; #Github# #',
    )
    expect(visible('Text\n\n[gh]: https://github.com "Github"\n')).toBe('Text\n\n#\n')
  })

  it('keeps words next to hidden parts apart', () => {
    const masked = maskMarkdown('API `x` Gateway')
    expect(masked).toBe(`API ${MASK.repeat(3)} Gateway`)
  })
})
