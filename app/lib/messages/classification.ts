/** The classification scheme (domains and business categories) and its admin page. */
export const classificationEn = {} as const

export const classificationKo: Record<keyof typeof classificationEn, string> = {}
