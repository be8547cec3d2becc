import type { JsonSource } from '../../core/json-source.js'
import type { AttributeRule, SessionFloor } from '../../runtime/dasp/index.js'

/**
 * The documents a model was made from, with their positions: the selection and each definition it
 * lists (by the index of its `definitions` entry). Non-enumerable on the model (`inspect` and the
 * generated module never show it); the differ locates its findings with it.
 */
export interface DaspSources {
  readonly selection: JsonSource
  readonly definitions: ReadonlyArray<{ readonly index: number; readonly source: JsonSource }>
}

export interface DaspModel {
  file: string
  request: Record<string, unknown>
  floor: SessionFloor
  attributes: AttributeRule[]
  /** Non-enumerable: see DaspSources. */
  readonly sources?: DaspSources
}
