import { describe, expect, it } from 'vitest'
import { bytesResponse, heldResponseBody, jsonResponse } from './held-bodies.ts'

describe('jsonResponse', () => {
  const value = { text: 'Voratixel', name: '용어', n: [1, 2] }
  const make = () =>
    jsonResponse(value, { status: 201, headers: { 'Content-Type': 'application/json; charset=utf-8' } })

  it('holds its serialized text for the bridge, with status and headers as given', () => {
    const res = make()
    expect(res).toBeInstanceOf(Response)
    expect(res.status).toBe(201)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(heldResponseBody(res)).toBe(JSON.stringify(value))
  })

  it('answers every reader with the same text, more than once', async () => {
    const res = make()
    expect(await res.json()).toEqual(value)
    expect(await res.text()).toBe(JSON.stringify(value))
    expect(new TextDecoder().decode(await res.arrayBuffer())).toBe(JSON.stringify(value))
    expect(await (await res.blob()).text()).toBe(JSON.stringify(value))
    expect(await res.clone().json()).toEqual(value)
    expect(res.clone().status).toBe(201)
  })

  it('gives a stream of the text only to a reader that asks for the body', async () => {
    const res = make()
    expect(res.body).not.toBeNull()
    expect(await new Response(res.body).text()).toBe(JSON.stringify(value))
  })

  it('a response built elsewhere holds nothing', () => {
    expect(heldResponseBody(new Response('x'))).toBeUndefined()
  })

  it('a response of bytes hands the same bytes to the bridge and their text to every reader', async () => {
    const bytes = Buffer.from(JSON.stringify(value))
    const res = bytesResponse(bytes, { status: 200, headers: { 'Content-Type': 'application/json' } })
    expect(heldResponseBody(res)).toBe(bytes)
    expect(await res.json()).toEqual(value)
    expect(await res.clone().text()).toBe(JSON.stringify(value))
    // A reader gets its own copy: changing it changes nothing held.
    new Uint8Array(await res.arrayBuffer()).fill(0)
    expect(await new Response(res.body).text()).toBe(JSON.stringify(value))
  })
})
