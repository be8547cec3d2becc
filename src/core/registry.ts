import type { ContractFormat } from './format.js'
import { benzeneFormat } from '../formats/benzene/index.js'
import { daspFormat } from '../formats/dasp/index.js'
import { natsFormat } from '../formats/nats/index.js'

/** Every format the compiler knows, in the order they are tried. */
export const formats: readonly ContractFormat<any, any, any>[] = [benzeneFormat, natsFormat, daspFormat]

export function findFormat(file: string): ContractFormat<any, any, any> | undefined {
  return formats.find((format) => format.match(file))
}

/** True when some format claims this file name (used by the plugins' default `include`). */
export function isContractFile(file: string): boolean {
  return findFormat(file) !== undefined
}
