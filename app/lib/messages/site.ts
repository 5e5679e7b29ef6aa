/** The site around every page: navigation, error pages and the confirmations shown after an action (flash messages). */
export const siteEn = {
  'nav.main': 'Main',
  'nav.menu': 'Menu',
  'nav.account': 'Your account',
  'nav.group.glossary': 'Glossary',
  'nav.group.content': 'Content',
  'nav.group.admin': 'Admin',

  'error.forbidden.title': 'You cannot open this page',
  'error.forbidden.role': 'This page needs the {needed} role. Your role is {role}.',
  'error.forbidden.ask': 'If you need it, ask an administrator to change your role.',
  'error.notFound.title': 'Not found',
  'error.notFound.text':
    'This page or item does not exist. It may have been renamed or deleted, or the address is mistyped.',
  'error.request.title': 'This request could not be done',
  'error.server.text':
    'Sorry, the page could not be shown. Try again in a moment; if it keeps happening, tell your administrator.',
  'error.home': 'Go to the home page',
  'error.terms': 'Go to the term list',

  'flash.setupDone': 'Setup is finished: you are signed in as the administrator.',
  'flash.registered': 'Your account is created. Welcome, {name}.',
  'flash.nameSaved': 'Your name is saved.',
  'flash.keyRevoked': 'The key “{name}” is revoked: programs using it can no longer sign in.',
  'flash.accountDeleted': 'Your account is deleted.',
  'flash.ssoSaved': 'Sign-in settings saved.',
  'flash.serviceSettingsSaved': 'Service settings saved.',
} as const

export const siteKo: Record<keyof typeof siteEn, string> = {
  'nav.main': '주 메뉴',
  'nav.menu': '메뉴',
  'nav.account': '내 계정',
  'nav.group.glossary': '용어 사전',
  'nav.group.content': '콘텐츠',
  'nav.group.admin': '관리',

  'error.forbidden.title': '이 페이지를 열 수 없습니다',
  'error.forbidden.role': '이 페이지에는 {needed} 역할이 필요합니다. 현재 역할은 {role}입니다.',
  'error.forbidden.ask': '필요하면 관리자에게 역할 변경을 요청하세요.',
  'error.notFound.title': '찾을 수 없습니다',
  'error.notFound.text':
    '이 페이지나 항목은 존재하지 않습니다. 이름이 바뀌었거나 삭제되었을 수 있고, 주소가 잘못되었을 수도 있습니다.',
  'error.request.title': '요청을 처리할 수 없습니다',
  'error.server.text':
    '죄송합니다. 페이지를 표시하지 못했습니다. 잠시 후 다시 시도하고, 계속되면 관리자에게 알려 주세요.',
  'error.home': '홈으로 가기',
  'error.terms': '용어 목록으로 가기',

  'flash.setupDone': '설정을 마쳤습니다. 관리자로 로그인되었습니다.',
  'flash.registered': '계정을 만들었습니다. {name} 님, 환영합니다.',
  'flash.nameSaved': '이름을 저장했습니다.',
  'flash.keyRevoked': '키 “{name}”을(를) 폐기했습니다. 이 키를 쓰는 프로그램은 더 이상 로그인할 수 없습니다.',
  'flash.accountDeleted': '계정을 삭제했습니다.',
  'flash.ssoSaved': '로그인 설정을 저장했습니다.',
  'flash.serviceSettingsSaved': '서비스 설정을 저장했습니다.',
}
