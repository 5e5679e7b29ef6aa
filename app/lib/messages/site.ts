/** The site around every page: navigation, error pages and the confirmations shown after an action (flash messages). */
export const siteEn = {
  'flash.setupDone': 'Setup is finished: you are signed in as the administrator.',
} as const

export const siteKo: Record<keyof typeof siteEn, string> = {
  'flash.setupDone': '설정을 마쳤습니다. 관리자로 로그인되었습니다.',
}
