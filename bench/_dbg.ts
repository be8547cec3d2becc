import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
for (const t of ['{"b": {"x": [1]}, "10": {"y": {}}, "2": []}\n', '{"b": {"x": [1]}}\n', '{"y": {}}\n', '{"2": []}\n']) { console.log(JSON.stringify(t), !!loadFastYaml(t)) }
