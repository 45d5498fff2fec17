/** Types of what eslint.config.js exports beside the config, for test/layers.test.ts. */
export declare const LAYERS: { layer: string; imports: string[] }[];
declare const config: unknown[];
export default config;
