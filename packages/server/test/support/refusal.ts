/** The error answer of a request that must be refused (fails the test if it was accepted). */
export interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details: {
    readonly path?: string;
    readonly limit?: number;
    readonly problems?: readonly { readonly path: string; readonly code: string }[];
    readonly [key: string]: unknown;
  };
}

export async function refusal(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (e: unknown) {
    return e as Refusal;
  }
  throw new Error('the request was accepted');
}
