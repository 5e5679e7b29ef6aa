import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { getSessionActor, isHttpsPage, pageAudit, requireSameOrigin } from '#app/pages/session.server.ts'
import { logout } from '#app/services/auth/accounts.server.ts'
import { clearedSessionCookie } from '#app/services/auth/sessions.server.ts'

/** Sign out is a POST with the origin check (no GET changes state). */
export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request)
  const actor = await getSessionActor(request)
  if (actor) {
    await logout({
      sessionId: actor.sessionId,
      ...pageAudit(actor, request, context),
    })
  }
  return redirect('/login', {
    headers: { 'Set-Cookie': clearedSessionCookie({ secure: isHttpsPage(context) }) },
  })
}

export async function loader() {
  return redirect('/')
}
