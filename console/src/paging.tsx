/** A page of a listing, as the key and identity lists read and page through them. */
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

/**
 * Previous and Next over a stack of cursors: `cursors` holds the cursor of
 * each page before this one (the first page's is undefined) and this page's.
 */
export function PageNav({
  cursors,
  setCursors,
  next,
}: {
  cursors: (string | undefined)[];
  setCursors: (cursors: (string | undefined)[]) => void;
  next: string | null;
}) {
  return (
    <nav class="paging" aria-label="Pages">
      <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous page
      </button>
      <span>Page {cursors.length}</span>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        Next page
      </button>
    </nav>
  );
}
