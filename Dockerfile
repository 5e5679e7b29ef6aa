# One image for migrate, web and worker (docker-compose.yml). Built on Debian with Node 20, like the
# development machines. Not built on them (no Docker engine there).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/bin ./bin
USER node
EXPOSE 3000
CMD ["node", "bin/glossary.js", "web"]
