/** A page of a listing, as the key and identity lists read them. */
import { useEffect, useState } from 'preact/hooks';
import { problemOf, type Problem } from './components';

/** What a listing route answers (openapi-fetch's shape). */
export interface PageAnswer<T> {
  data?: { data: T[]; meta: { next_cursor: string | null } };
  error?: unknown;
  response: Response;
}

/**
 * The page `read` answers, read again whenever one of `inputs` changes. The
 * rows of the page before are taken away while it loads (undefined), so a
 * click meant for one of them cannot land on the row that takes its place;
 * a stale answer is dropped.
 */
export function usePage<T>(read: () => Promise<PageAnswer<T>>, inputs: readonly unknown[]) {
  const [rows, setRows] = useState<T[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    let current = true;
    setProblem(undefined);
    setRows(undefined);
    read()
      .then(({ data, error, response }) => {
        if (!current) return;
        if (error || !data) {
          setProblem(problemOf(error, response));
          setRows([]);
          return;
        }
        setRows(data.data);
        setNext(data.meta.next_cursor);
      })
      .catch((failure: unknown) => current && setProblem(problemOf(failure)));
    return () => {
      current = false;
    };
    // `read` is made anew on every render; the inputs it reads are what decide a new read.
  }, inputs);
  return { rows, next, problem };
}
