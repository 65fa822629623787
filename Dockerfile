# The service's image: one for the api and the worker processes (docker-compose.yml). Node 24 LTS.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --omit=dev --include=optional && npm cache clean --force
COPY . .
# The pages' scripts (dist/pages: the API serves them), and the workflow bundle, built once here rather than by
# webpack at every worker start.
RUN npm run build:pages
RUN npm run build:workflows -- /app/dist/workflows.js
ENV WORKFLOW_BUNDLE_FILE=/app/dist/workflows.js
# Development certificates and keys are generated under DATA_DIR when none are configured: it must be writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# Node itself as PID 1, not npm: npm's shell does not pass on SIGTERM, so `docker stop` would kill the process
# before it drains (in-flight requests, activities). Our handlers replace the defaults Node lacks as PID 1.
CMD ["node", "--import", "tsx", "bin/api.ts"]
