// `npm run seed`: posts a few sample posts to the running service (`npm start`). Each sample
// has its own Idempotency-Key, so seeding twice within a day does not duplicate them.
const base = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;

const samples = [
  { title: "Hello, world", content: "The first post on this blog." },
  {
    title: "Timestamps, day first",
    content: "Dates read YYYY-DD-MM HH:MM:SS: the day comes before the month.",
  },
  { title: "Partial updates", content: "PUT /api/post/<id> changes only the fields you send." },
  {
    title: "Retries are safe",
    content: "Send an Idempotency-Key with POST and a retry never makes a second post.",
  },
];

for (const [index, sample] of samples.entries()) {
  let response;
  try {
    response = await fetch(`${base}/api/post`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": `seed-sample-${index + 1}`,
      },
      body: JSON.stringify(sample),
    });
  } catch {
    console.error(`Cannot reach ${base}: start the service first with npm start.`);
    process.exit(1);
  }
  const body = await response.json();
  console.log(`${response.status} ${JSON.stringify(body)}`);
  if (response.status !== 201) process.exitCode = 1;
}
