import type { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A CodeMirror 6 JavaScript editor. CodeMirror loads with the first editor shown, not with the console,
 * which keeps the initial JavaScript small. `value` replaces the text only when it differs (another revision
 * chosen); typing goes out through `onChange`.
 */
export function CodeEditor({ value, onChange, label }: { value: string; onChange: (code: string) => void; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    let disposed = false;
    void Promise.all([import('codemirror'), import('@codemirror/lang-javascript'), import('@codemirror/view')]).then(
      ([{ basicSetup, EditorView }, { javascript }, viewModule]) => {
        if (disposed || !box.current) return;
        view.current = new EditorView({
          doc: value,
          parent: box.current,
          extensions: [
            basicSetup,
            javascript(),
            viewModule.EditorView.contentAttributes.of({ 'aria-label': label }),
            // On a narrow screen lines wrap: a box that scrolls sideways would need a keyboard way in of its own.
            ...(matchMedia('(max-width: 900px)').matches ? [EditorView.lineWrapping] : []),
            EditorView.updateListener.of((update) => update.docChanged && changed.current(update.state.doc.toString())),
          ],
        });
      },
    );
    return () => {
      disposed = true;
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const current = view.current;
    if (current && current.state.doc.toString() !== value) current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
  }, [value]);

  return <div class="editor" ref={box} data-testid="code-editor" />;
}
