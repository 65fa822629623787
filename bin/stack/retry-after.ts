// A client that comes back when the API says so: an answered 503 (busy file checks) or 429 (a rate limit) with
// Retry-After is sent again then, as the README tells integrators, for about a minute at most.

interface Answer {
  status: number;
  headers: { get(name: string): string | null };
}

export async function sentAgainWhenBusy<A extends Answer>(send: () => Promise<A>, statuses = [429, 503]): Promise<A> {
  let answer = await send();
  for (let tries = 1; statuses.includes(answer.status) && answer.headers.get('retry-after') && tries < 60; tries++) {
    await new Promise((ok) => setTimeout(ok, Number(answer.headers.get('retry-after')) * 1000));
    answer = await send();
  }
  return answer;
}
