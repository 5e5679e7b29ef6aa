import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { isLang } from '#app/lib/i18n.ts'

/** Switches the label language (a preference cookie only); returns to the page the form was on. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData()
  const lang = form.get('lang')
  const back = request.headers.get('referer')
  let target = '/'
  if (back) {
    const url = new URL(back)
    if (url.host === new URL(request.url).host) target = url.pathname + url.search
  }
  return redirect(target, {
    headers: isLang(lang) ? { 'Set-Cookie': `lang=${lang}; Path=/; Max-Age=31536000; SameSite=Lax` } : {},
  })
}

export async function loader() {
  return redirect('/')
}
