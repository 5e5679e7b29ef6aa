import { data } from '@remix-run/node'

/**
 * Any address no other page answers: a 404 thrown from this route's loader, so the root loader runs first and
 * the root's ErrorBoundary shows the "not found" page inside the site's header and navigation (without this
 * route Remix answers an unmatched address without running any loader). A post to such an address is a 404 too.
 */
export function loader() {
  throw data({ message: 'Not found' }, { status: 404 })
}

export function action() {
  throw data({ message: 'Not found' }, { status: 404 })
}

/** Never shown (the loader always throws); a page component makes this a page route, not a resource route. */
export default function NotFound() {
  return null
}
