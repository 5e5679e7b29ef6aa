/**
 * `react-dom/server.browser` (React's web-stream renderer, used by app/entry.server.tsx) has no typings of its own
 * in @types/react-dom 18; it is the same `renderToReadableStream` that `react-dom/server`'s typings describe.
 */
declare module 'react-dom/server.browser' {
  export { renderToReadableStream } from 'react-dom/server'
}
