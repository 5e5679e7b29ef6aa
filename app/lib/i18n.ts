/**
 * Korean and English labels. The language comes from the `lang` cookie, else Accept-Language, else English.
 * Shared by server and browser, so it holds no secrets and reads no environment.
 */
export const LANGS = ['en', 'ko'] as const
export type Lang = (typeof LANGS)[number]

const en = {
  'app.title': 'Glossary',
  'app.tagline': 'The official terms of your organization: names, notations, definitions and their history.',
  'nav.home': 'Home',
  'nav.terms': 'Terms',
  'nav.check': 'Check a text',
  'nav.wiki': 'Wiki',
  'nav.relations': 'Relations',
  'nav.meetings': 'Meetings',
  'nav.settings': 'Settings',
  'nav.users': 'Users',
  'nav.audit': 'Audit log',
  'nav.login': 'Sign in',
  'nav.logout': 'Sign out',
  'nav.register': 'Create account',
  'nav.language': '한국어',
  'home.api': 'API description (OpenAPI)',
  'home.health': 'Service health',
  'error.title': 'Something went wrong',
  'error.notFound': 'This page does not exist.',
} as const

export type MessageKey = keyof typeof en

const ko: Record<MessageKey, string> = {
  'app.title': '용어 사전',
  'app.tagline': '조직의 공식 용어: 이름, 표기, 정의와 그 변경 이력.',
  'nav.home': '홈',
  'nav.terms': '용어',
  'nav.check': '문서 검사',
  'nav.wiki': '위키',
  'nav.relations': '관계',
  'nav.meetings': '회의록',
  'nav.settings': '설정',
  'nav.users': '사용자',
  'nav.audit': '감사 로그',
  'nav.login': '로그인',
  'nav.logout': '로그아웃',
  'nav.register': '계정 만들기',
  'nav.language': 'English',
  'home.api': 'API 명세 (OpenAPI)',
  'home.health': '서비스 상태',
  'error.title': '문제가 발생했습니다',
  'error.notFound': '이 페이지는 존재하지 않습니다.',
}

const MESSAGES: Record<Lang, Record<MessageKey, string>> = { en, ko }

export function translate(lang: Lang, key: MessageKey): string {
  return MESSAGES[lang][key] ?? en[key]
}

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value)
}

/** The language of a request: the `lang` cookie, else the first supported Accept-Language entry. */
export function detectLang(request: Request): Lang {
  const cookie = request.headers.get('cookie') ?? ''
  const match = /(?:^|;\s*)lang=(en|ko)(?:;|$)/.exec(cookie)
  if (match && isLang(match[1])) return match[1]
  const accept = (request.headers.get('accept-language') ?? '').toLowerCase()
  for (const part of accept.split(',')) {
    const code = part.trim().slice(0, 2)
    if (isLang(code)) return code
  }
  return 'en'
}
