// Against `npm start`: `node client/example.ts` (Node 24 runs TypeScript by stripping its types).
import { ApiError, createBlogClient } from "./index.mjs";

const blog = createBlogClient({ baseUrl: "http://localhost:3000", token: process.env.API_TOKEN });
const { post } = await blog.createPost({ title: "Hello", content: "My first post" });
await blog.updatePost(post.id, { title: "Hello, world" });
const list = await blog.listPosts();
const again = await blog.listPosts({ ifNoneMatch: list.etag });
console.log(again.notModified); // true: no post changed since the list was read
await blog.deletePost(post.id);
await blog.getPost(post.id).catch((error) => {
  if (error instanceof ApiError) console.log(error.status, error.detail); // 404 Blog post #… not found
});
