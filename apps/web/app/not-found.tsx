import Link from "next/link";

export default function NotFound() {
  return (
    <div className="rounded-md border border-zinc-200 bg-white p-6 text-sm">
      <h1 className="font-semibold">Not found</h1>
      <p className="mt-1 text-zinc-600">There is nothing here (in this workspace).</p>
      <Link href="/" className="mt-3 inline-block text-blue-600 hover:underline">
        Back to runs
      </Link>
    </div>
  );
}
