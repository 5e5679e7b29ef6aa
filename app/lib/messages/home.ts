/** The home page: a signed-in user's start. */
export const homeEn = {} as const

export const homeKo: Record<keyof typeof homeEn, string> = {}
