import { AppSetting } from './app-setting.entity.ts'
import { ApiKey } from './api-key.entity.ts'
import { Session } from './session.entity.ts'
import { User } from './user.entity.ts'

/** Every entity, listed explicitly (no folder discovery, so the bundled server build sees the same list). */
export const ENTITIES = [AppSetting, User, Session, ApiKey]
