import path from 'node:path';
import { anchorsOf, brokenLinks, markdownFiles, slug } from '../support/markdown-links';

const ROOT = path.join(__dirname, '../..');
const DOCUMENTS = [path.join(ROOT, 'README.md'), path.join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe('the documentation links', () => {
  it.each(DOCUMENTS.map((file) => [path.relative(ROOT, file), file]))('every relative link and anchor of %s resolves', (_name, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('catches a link to a missing file and an anchor no heading gives', () => {
    const problems = brokenLinks(path.join(__dirname, 'fixtures/broken-links.md'));
    expect(problems).toEqual([
      expect.stringMatching(/broken-links\.md:5 no-such-page\.md: no such file$/),
      expect.stringMatching(/broken-links\.md:7 #no-such-heading: no heading gives #no-such-heading$/),
      expect.stringMatching(/broken-links\.md:9 \.\.\/links\.test\.ts#x: an anchor into something that is not a Markdown file$/),
    ]);
  });

  it('names anchors as GitHub does', () => {
    expect(slug("Delivery overview: the funnel, failed events, retries")).toBe('delivery-overview-the-funnel-failed-events-retries');
    expect(slug("The bench's settings")).toBe('the-benchs-settings');
    expect(slug('`npm start` and **Ctrl-C**')).toBe('npm-start-and-ctrl-c');
    expect([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual(['a', 'notes', 'notes-1']);
  });
});
