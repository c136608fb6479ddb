// A share link that does not exist or was revoked (HTTP 404). No links into the app.
export default function ShareNotFound() {
  return (
    <div data-testid="share-not-found" className="rounded-md border border-zinc-200 bg-white p-6 text-sm">
      <h1 className="font-semibold">This link does not work</h1>
      <p className="mt-1 text-zinc-600">It does not exist, or whoever shared it has revoked it.</p>
    </div>
  );
}
