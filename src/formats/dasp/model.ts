import type { AttributeRule, SessionFloor } from '../../runtime/dasp.js'

export interface DaspModel {
  file: string
  request: Record<string, unknown>
  floor: SessionFloor
  attributes: AttributeRule[]
}
