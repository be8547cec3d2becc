import type { AttributeRule, SessionFloor } from '../../runtime/dasp/index.js'

export interface DaspModel {
  file: string
  request: Record<string, unknown>
  floor: SessionFloor
  attributes: AttributeRule[]
}
