// The interactive reference of /openapi.json (Swagger UI, served by us). "Authorize" takes an API key.
window.ui = SwaggerUIBundle({
  url: '../openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
});
