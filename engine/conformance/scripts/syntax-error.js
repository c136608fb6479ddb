// "Test lifecycle" (k6 docs, using-k6/test-lifecycle): the script is parsed in the init stage. A
// syntax error is a script error: exit 107, naming the file on stderr. (Excluded from biome in
// ../biome.json, which cannot parse it either.)
export default function () {
  const broken = {;
}
