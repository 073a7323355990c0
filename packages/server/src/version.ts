/** The product version, printed by `weave version` and served in the OpenAPI document. */
export const VERSION = '0.1.0';
