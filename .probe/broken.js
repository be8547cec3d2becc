import { capture } from './broken.spec.json'
export const topic = capture.topic
