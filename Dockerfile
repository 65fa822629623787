# The service's image: one for the api and the worker processes (docker-compose.yml). Node 24 LTS.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --omit=dev --include=optional && npm cache clean --force
COPY . .
# The workflow bundle, built once here rather than by webpack at every worker start.
RUN npm run build:workflows -- /app/dist/workflows.js
ENV WORKFLOW_BUNDLE_FILE=/app/dist/workflows.js
# Development certificates and keys are generated under DATA_DIR when none are configured: it must be writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
CMD ["npm", "run", "start:api"]
