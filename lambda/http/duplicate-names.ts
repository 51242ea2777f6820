/**
 * Names given more than once in one JSON object (`{"type":"sk","type":"pk"}`).
 *
 * `JSON.parse` keeps the last of them without a word, while another reader
 * of the same body (a WAF rule, a proxy, a client's own log) may keep the
 * first: the service would act on a value the sender's other tools never
 * saw. RFC 8259 leaves the outcome to each parser, so the body is refused.
 *
 * Runs on text that `JSON.parse` has accepted, so it only has to follow
 * strings and brackets. A name is compared once its escapes are read
 * (`"\u0074ype"` is `type`).
 */

interface ObjectFrame {
  readonly names: Set<string>;
  readonly path: string;
  /** The next string in this object is a name (after `{` or `,`), not a value. */
  expectName: boolean;
  /** The path of the member whose value is being read. */
  member: string;
}

interface ArrayFrame {
  readonly names: undefined;
  readonly path: string;
  index: number;
}

type Frame = ObjectFrame | ArrayFrame;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const join = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

/** Where a value opened now sits: the member being read, or the array's next index. */
function pathOfValue(frame: Frame | undefined): string {
  if (frame === undefined) return '';
  if (frame.names === undefined) return join(frame.path, String(frame.index));
  return frame.member;
}

/**
 * The dotted paths (`type`, `domains.0.name`) of every name that an object
 * of `text` gives more than once, each path once, in the order met.
 * `text` must be JSON that `JSON.parse` accepted.
 */
export function duplicateNames(text: string): string[] {
  // No object has two names unless the text holds at least two colons.
  if (text.indexOf(':') === text.lastIndexOf(':')) return [];
  const stack: Frame[] = [];
  const found = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      const frame = stack.at(-1);
      if (frame?.names !== undefined && frame.expectName) {
        const name = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        frame.member = join(frame.path, name);
        if (frame.names.has(name)) found.add(frame.member);
        else frame.names.add(name);
        frame.expectName = false;
      }
      continue;
    }
    switch (text[i]) {
      case '{':
        stack.push({ names: new Set(), path: pathOfValue(stack.at(-1)), expectName: true, member: '' });
        break;
      case '[':
        stack.push({ names: undefined, path: pathOfValue(stack.at(-1)), index: 0 });
        break;
      case '}':
      case ']':
        stack.pop();
        break;
      case ',': {
        const frame = stack.at(-1);
        if (frame === undefined) break;
        if (frame.names === undefined) frame.index += 1;
        else frame.expectName = true;
        break;
      }
      default:
        break;
    }
  }
  return [...found];
}
