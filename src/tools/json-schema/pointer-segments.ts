/** JSON pointers in a schema's URIs and error locations, as path segments. */

/** `#/properties/a~1b/0` → `["properties", "a/b", "0"]`. */
export function pointerSegments(location: string): string[] {
  const pointer = location.replace(/^#/, "");
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map(decodeSegment);
}

/** One segment: percent-decoded (as in a URI fragment), then `~1` → `/`, `~0` → `~`. */
export function decodeSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // keep it as it is
  }
  return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
}
