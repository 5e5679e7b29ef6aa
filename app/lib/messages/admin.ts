/** The admin pages: users, audit log, search settings; and the history controls. */
export const adminEn = {} as const

export const adminKo: Record<keyof typeof adminEn, string> = {}
