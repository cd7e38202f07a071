// The few S3 answers the store reads, from their XML: ListObjectsV2, InitiateMultipartUpload and <Error>, and the
// escaping of what it writes. They are flat and known, so a tag's text is found by name instead of parsing a tree
// (no XML parser dependency).
export type ListedObject = { key: string; bytes: number; modifiedAt: Date };
export type ListPage = { objects: ListedObject[]; nextToken: string | null };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()];
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

/** Text as XML content (the ETags a CompleteMultipartUpload lists). */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The text of the first <tag> in `xml`, unescaped; null when there is none. */
export function tagText(xml: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return match ? unescapeXml(match[1]) : null;
}

export function parseListPage(xml: string): ListPage {
  const objects: ListedObject[] = [];
  for (const [, body] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = tagText(body, 'Key');
    if (key === null) continue;
    objects.push({ key, bytes: Number(tagText(body, 'Size') ?? 0), modifiedAt: new Date(tagText(body, 'LastModified') ?? 0) });
  }
  const truncated = tagText(xml, 'IsTruncated') === 'true';
  return { objects, nextToken: truncated ? tagText(xml, 'NextContinuationToken') : null };
}

/** An <Error>'s code and message ("NoSuchBucket: The specified bucket does not exist"). */
export function parseError(xml: string): { code: string; message: string } | null {
  const code = tagText(xml, 'Code');
  return code ? { code, message: tagText(xml, 'Message') ?? '' } : null;
}
