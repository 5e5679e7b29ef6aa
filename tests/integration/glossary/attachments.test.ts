import { beforeAll, describe, expect, it } from 'vitest'
import { findUnreferencedAttachments } from '#app/services/attachments/attachments.server.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex'),
])
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')])
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46])
const HTML = Buffer.from('<html><script>alert(1)</script></html>')

let editor: TestUser
let writeKey: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  writeKey = await createApiKey(editor.user.id, ['write', 'read'])
})

async function upload(body: BodyInit, headers: Record<string, string>) {
  const res = await fetch(`${server.url()}/api/v1/attachments`, { method: 'POST', headers, body })
  return { status: res.status, json: await res.json() }
}

describe('attachments', () => {
  it('stores PNG, JPEG, GIF and WebP recognized by magic bytes, and serves them with safe headers', async () => {
    for (const [bytes, type] of [
      [PNG, 'image/png'],
      [JPEG, 'image/jpeg'],
      [GIF, 'image/gif'],
      [WEBP, 'image/webp'],
    ] as const) {
      const res = await upload(bytes, { ...writeKey, 'content-type': type })
      expect(res.status, type).toBe(201)
      expect(res.json).toMatchObject({ contentType: type, size: bytes.length })
      const got = await fetch(`${server.url()}${res.json.url}`, { headers: writeKey })
      expect(got.status).toBe(200)
      expect(got.headers.get('content-type')).toBe(type)
      expect(got.headers.get('x-content-type-options')).toBe('nosniff')
      expect(got.headers.get('content-disposition')).toBe('inline')
      expect(got.headers.get('content-security-policy')).toMatch(/sandbox/)
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true)
    }
  })

  it('accepts multipart uploads and stores identical bytes once', async () => {
    const form = new FormData()
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'a.png')
    const res = await upload(form, editor.sessionHeaders)
    expect(res.status).toBe(201)
    const again = await upload(PNG, { ...writeKey, 'content-type': 'image/png' })
    expect(again.json.id).toBe(res.json.id)
  })

  it('refuses a type the bytes do not match, non-images, empty and oversized bodies, and read-only keys', async () => {
    const html = await upload(HTML, { ...writeKey, 'content-type': 'image/png' })
    expect(html.status).toBe(415)
    expect(html.json.error.code).toBe('unsupported_media_type')
    const svg = await upload('<svg xmlns="http://www.w3.org/2000/svg"/>', {
      ...writeKey,
      'content-type': 'image/svg+xml',
    })
    expect(svg.status).toBe(415)
    expect((await upload(GIF, { ...writeKey, 'content-type': 'image/png' })).status).toBe(415)
    expect((await upload(Buffer.alloc(0), { ...writeKey, 'content-type': 'image/png' })).status).toBe(400)
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)])
    expect((await upload(big, { ...writeKey, 'content-type': 'image/png' })).status).toBe(413)
    const readOnly = await createApiKey(editor.user.id, ['read'])
    expect((await upload(PNG, { ...readOnly, 'content-type': 'image/png' })).status).toBe(403)
  })

  it('finds attachments that no revision body references', async () => {
    const used = await upload(WEBP.subarray(0, 12), {
      ...writeKey,
      'content-type': 'application/octet-stream',
    })
    expect(used.status).toBe(201)
    const unused = await upload(Buffer.concat([JPEG, Buffer.from([1, 2, 3])]), {
      ...writeKey,
      'content-type': 'image/jpeg',
    })
    await createTerm({ name: 'Illustrated', body: `![diagram](/api/v1/attachments/${used.json.id})` })
    const future = new Date(Date.now() + 60_000)
    const ids = (await findUnreferencedAttachments(future)).map((a) => a.id)
    expect(ids).toContain(unused.json.id)
    expect(ids).not.toContain(used.json.id)
    expect(await findUnreferencedAttachments(new Date(0))).toEqual([])
  })
})
