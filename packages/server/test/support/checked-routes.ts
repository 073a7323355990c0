/**
 * The route table with every success answer checked against its contract's answer schema (a
 * standard JSON Schema validator, `answer-schemas.ts`). The test servers run on it, so every
 * HTTP test also shows that the server's presenters send exactly the documented shapes.
 */
import { allRoutes } from '../../src/http/routes/index.js';
import type { Answer, Route } from '../../src/http/route.js';
import { schemaErrors } from './answer-schemas.js';

function checked(route: Route, answer: Answer<unknown>): Answer<unknown> {
  const { contract } = route;
  for (const [which, body] of [
    ['body', answer.body],
    ['replayBody', answer.replayBody],
  ] as const) {
    if (body === undefined) {
      continue;
    }
    const errors = schemaErrors(contract.answer, body);
    if (errors.length > 0) {
      throw new Error(
        `${contract.method} ${contract.path} (${contract.id}): the ${which} does not match its ` +
          `answer schema: ${errors.join('; ')}`,
      );
    }
  }
  return answer;
}

export function checkedRoutes(routes: readonly Route[] = allRoutes): Route[] {
  return routes.map((route) => {
    const { handle, session } = route;
    if (handle !== undefined) {
      return { ...route, handle: async (ctx, input) => checked(route, await handle(ctx, input)) };
    }
    if (session !== undefined) {
      return { ...route, session: async (ctx, input) => checked(route, await session(ctx, input)) };
    }
    return route;
  });
}
