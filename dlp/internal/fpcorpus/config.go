package fpcorpus

import "strings"

// configs writes configuration that references secrets without holding
// them: templates, environment references, secret store resource names,
// URL-valued keys, placeholders.
func configs(g *gen) {
	for i := 0; i < 1400; i++ {
		app, ns := g.word()+"-"+g.word(), g.word()
		up := strings.ToUpper(g.snake(2))
		switch i % 7 {
		case 0:
			g.pf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  template:\n    spec:\n      containers:\n        - name: %s\n          image: registry.example.com/%s@sha256:%s\n          env:\n            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: %s-db\n                  key: password\n            - name: %s_API_KEY\n              valueFrom:\n                secretKeyRef: {name: %s-api, key: api_key}\n---\n", app, ns, app, app, digestOf(app), app, up, app)
		case 1:
			g.pf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-config\ndata:\n  LOG_LEVEL: info\n  PASSWORD_MIN_LENGTH: \"12\"\n  TOKEN_ENDPOINT: https://auth.example.com/oauth2/token\n  SECRET_NAME: projects/%s/secrets/%s-password/versions/%d\n---\n", app, ns, app, g.r.IntN(9)+1)
		case 2:
			g.pf("services:\n  %s:\n    image: %s:%s\n    environment:\n      DATABASE_URL: postgres://%s:${DB_PASSWORD}@db:5432/%s\n      REDIS_URL: redis://:${REDIS_PASSWORD}@cache:6379/0\n      API_KEY: ${%s_API_KEY:?required}\n      SECRET_KEY_FILE: /run/secrets/%s_key\n", app, app, g.version(), ns, ns, up, ns)
		case 3:
			g.pf("# .env.example\n%s_PASSWORD=\n%s_API_KEY=<your-api-key>\nDB_PASSWORD=${DB_PASSWORD}\npassword_reset_url=https://%s.example.com/account/reset?step=1\nclient_secret_url=https://vault.example.com/v1/secret/data/%s\nSESSION_SECRET=${SESSION_SECRET}\n", up, up, g.word(), app)
		case 4:
			g.pf("jobs:\n  deploy:\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./deploy.sh\n        env:\n          TOKEN: ${{ secrets.%s_TOKEN }}\n          password: ${{ secrets.DB_PASSWORD }}\n          api_key: \"{{ .Values.%s.apiKey }}\"\n", up, g.camel(1))
		case 5:
			g.pf("resource \"google_secret_manager_secret_version\" \"%s\" {\n  secret      = \"projects/%s/secrets/%s-password\"\n  secret_data = var.%s_password\n}\nvariable \"%s_password\" {\n  type      = string\n  sensitive = true\n}\n", ns, ns, app, ns, ns)
		case 6:
			g.pf("spring.datasource.url=jdbc:postgresql://db.%s.internal:5432/%s\nspring.datasource.username=%s\nspring.datasource.password=${DB_PASSWORD}\nsecurity.oauth2.client.client-secret=${OAUTH_CLIENT_SECRET}\nmanagement.endpoint.password-reset.url=https://%s.example.com/reset\n[database]\npassword = %%(db_password)s\nhost = db.%s.internal\n", ns, ns, app, g.word(), ns)
		}
	}
}

func logs(g *gen) {
	for i := 0; i < 2400; i++ {
		g.pf("10.%d.%d.%d - - [23/Nov/2026:20:%02d:%02d +0000] \"GET /api/v1/%s/%s?page=%d&token_type=bearer HTTP/1.1\" %d %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\" request_id=%s trace_id=%s\n",
			g.r.IntN(256), g.r.IntN(256), g.r.IntN(256), g.r.IntN(60), g.r.IntN(60), g.word(), g.word(), g.r.IntN(50), 200+g.r.IntN(4)*100, g.r.IntN(1<<16), g.uuid(), g.hex(16))
		if i%5 == 0 {
			g.pf("{\"level\":\"info\",\"msg\":\"%s %s\",\"user_id\":%d,\"session\":\"%s\",\"password_changed\":false,\"token_expires_in\":3600,\"span_id\":\"%s\"}\n", g.word(), g.word(), g.r.IntN(1<<20), g.uuid(), g.hex(8))
		}
	}
}
