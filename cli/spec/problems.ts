import type { LineCounter } from 'yaml';
import { isNode, type Document } from 'yaml';
import type { Origin, Path } from './types';

/** One thing wrong with the spec: the file, the line and the field it is about, and what is wrong. */
export interface Problem {
  file: string;
  line: number;
  field: string;
  message: string;
}

export const formatProblem = (p: Problem): string => `${p.file}:${p.line}: ${p.field}: ${p.message}`;

/** `sources[0].config.webhookUrl`: a path as the error names it. */
export const fieldOf = (path: Path): string =>
  path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');

/** A parsed YAML file: its document and the line of every node in it. */
export class SpecFile {
  constructor(
    readonly name: string,
    readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The line of the node at `path`, or of its nearest ancestor present in the file (a missing field's parent). */
  lineOf(path: Path): number {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return this.lines.linePos(node.range[0]).line;
    }
    return 1;
  }
}

/** Collects problems, each placed in its file by the item's origin and the field's path under it. */
export class Problems {
  readonly list: Problem[] = [];
  constructor(private readonly files: Map<string, SpecFile>) {}

  add(origin: Origin, sub: Path, message: string): void {
    const path = [...origin.path, ...sub];
    const file = this.files.get(origin.file);
    this.list.push({ file: origin.file, line: file ? file.lineOf(path) : 1, field: fieldOf(path), message });
  }

  get any(): boolean {
    return this.list.length > 0;
  }
}
