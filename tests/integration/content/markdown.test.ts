import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { assertSafeHtml, XSS_PAYLOADS } from './helpers.ts'

describe('renderMarkdown', () => {
  it('renders ordinary Markdown: headings, emphasis, lists, code, tables, links', () => {
    const html = renderMarkdown(
      '# 제목\n\n*em* **strong** ~~gone~~\n\n- a\n- b\n\n```ts\nconst x = 1\n```\n\n| a | b |\n|--:|---|\n| 1 | 2 |\n\n[site](https://example.com) <https://auto.example>',
    )
    expect(html).toContain('<h1>제목</h1>')
    expect(html).toContain('<em>em</em> <strong>strong</strong> <s>gone</s>')
    expect(html).toContain('<li>a</li>')
    expect(html).toContain('<pre><code class="language-ts">const x = 1\n</code></pre>')
    expect(html).toContain('<th style="text-align:right">a</th>')
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">site</a>')
    expect(html).toContain('href="https://auto.example"')
  })

  it('keeps http(s), mailto and same-site links and drops other schemes and protocol-relative ones', () => {
    expect(renderMarkdown('[m](mailto:a@example.com)')).toContain('href="mailto:a@example.com"')
    expect(renderMarkdown('[w](/wiki/intro)')).toContain('href="/wiki/intro"')
    expect(renderMarkdown('[w](#part)')).toContain('href="#part"')
    expect(renderMarkdown('[f](ftp://files.example/x)')).not.toContain('href=')
    expect(renderMarkdown('[p](//evil.example/x)')).not.toContain('href=')
  })

  it('shows images from our attachments or http(s) only', () => {
    expect(renderMarkdown('![d](/api/v1/attachments/abc123)')).toContain(
      '<img alt="d" src="/api/v1/attachments/abc123" />',
    )
    expect(renderMarkdown('![d](https://cdn.example/a.png)')).toContain('src="https://cdn.example/a.png"')
    for (const src of [
      '/etc/passwd',
      'relative.png',
      'data:image/png;base64,AAAA',
      '//cdn.example/a.png',
      'file:///x.png',
    ]) {
      expect(renderMarkdown(`![d](${src})`), src).not.toContain('<img')
    }
  })

  it('never lets script through: no script element, no event handler, no javascript: URL', () => {
    for (const payload of XSS_PAYLOADS) {
      const html = renderMarkdown(payload)
      assertSafeHtml(html)
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toMatch(/<[^>]*\son\w+\s*=/i)
      expect(html).not.toMatch(/<[a-z][^>]*\s(href|src)="\s*javascript:/i)
    }
    // Raw HTML is shown as text, not dropped silently.
    expect(renderMarkdown('<b>bold?</b>')).toBe('<p>&lt;b&gt;bold?&lt;/b&gt;</p>\n')
  })
})

describe('renderMarkdown with a passage (a search result’s character range)', () => {
  const md =
    '# Title\r\n\r\nFirst para.\r\n\r\nSecond para\r\nwith two lines.\r\n\r\n- a\r\n- b\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\n```js\r\ncode\r\n```\r\n'
  const range = (from: string, to: string) => ({ start: md.indexOf(from), end: md.indexOf(to) + to.length })

  it('marks the blocks that hold it, the first with the anchor, and nothing else', () => {
    const html = renderMarkdown(md, { passage: range('with two', '- a') })
    expect(html).toContain('<p class="passage" id="passage">Second para\nwith two lines.</p>')
    expect(html).toContain('<li class="passage">a</li>')
    expect(html).toContain('<li>b</li>')
    expect(html).toContain('<p>First para.</p>')
    expect(html.match(/id="passage"/g)).toHaveLength(1)
  })

  it('marks headings, table rows and code, keeping the code’s language', () => {
    expect(renderMarkdown(md, { passage: range('Title', 'Title') })).toContain(
      '<h1 class="passage" id="passage">Title</h1>',
    )
    const html = renderMarkdown(md, { passage: range('| 1', 'code') })
    expect(html).toContain('<tr class="passage" id="passage">\n<td>1</td>')
    expect(html).toContain('<code class="passage language-js">code')
  })

  it('renders as without a passage when none is given, and the page’s own source cannot make the mark', () => {
    expect(renderMarkdown(md)).not.toContain('passage')
    const forged = renderMarkdown('<p class="passage" id="passage">x</p>\n\n[a](#x){#passage}')
    // shown as text, never as an element with the mark
    expect(forged).toContain('&lt;p class="passage"')
    expect(forged).not.toMatch(/<[a-z0-9]+ [^>]*(class|id)="passage"/)
  })
})
