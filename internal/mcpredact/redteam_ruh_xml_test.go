package mcpredact_test

import "testing"

// Red team ruh: a value element was read under the name element before it
// only when it came right after it; a comment, a description or any other
// element between them (Hadoop's core-site.xml and hive-site.xml often
// give a <description> before the <value>) sent a password with spaces.
func TestRedTeamRUH_XMLNameThenValue(t *testing.T) {
	w := "correct horse battery staple"
	rtqWordsRedacted(t, map[string]string{
		"comment between":     "<property><name>db.password</name><!-- the pw --><value>" + w + "</value></property>",
		"description between": "<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n  <description>password to use against metastore database</description>\n  <value>" + w + "</value>\n</property>",
		"final between":       "<property><name>db.password</name><final>true</final><value>" + w + "</value></property>",
		"pi between":          "<entry><key>db_password</key><?x y?><value>" + w + "</value></entry>",
		"setting other first": `<setting name="DbPassword"><comment>x</comment><value>` + w + `</value></setting>`,
		"element other first": "<AdministratorPassword><PlainText>true</PlainText><Value>" + w + "</Value></AdministratorPassword>",
	})
}

// Near misses: the name does not reach a value element past the end of
// the element around it, nor a second value element, and ordinary
// configuration files go out byte for byte.
func TestRedTeamRUH_XMLNameThenValueNearMisses(t *testing.T) {
	w := "correct horse battery staple"
	rtqUnchanged(t, []string{
		"<property><name>db.password</name><description>x</description></property>\n<property><value>" + w + "</value></property>",
		"<entry><key>db_password</key><value></value></entry><entry><value>" + w + "</value></entry>",
		"<configuration>\n  <property>\n    <name>dfs.replication</name>\n    <description>Block replication.</description>\n    <value>3</value>\n  </property>\n  <property>\n    <name>fs.defaultFS</name>\n    <value>hdfs://namenode:8020</value>\n  </property>\n</configuration>\n",
		"<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>dev.example</groupId>\n  <artifactId>app</artifactId>\n  <properties>\n    <java.version>21</java.version>\n  </properties>\n  <dependencies>\n    <dependency>\n      <groupId>org.postgresql</groupId>\n      <artifactId>postgresql</artifactId>\n      <version>42.7.3</version>\n    </dependency>\n  </dependencies>\n</project>\n",
		"<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n    <UserSecretsId>aspnet-app-7f3a9c2e</UserSecretsId>\n  </PropertyGroup>\n</Project>\n",
		"<dict>\n\t<key>PasswordRequired</key>\n\t<false/>\n\t<key>Name</key>\n\t<string>Office Wi-Fi</string>\n</dict>\n",
		"<form>\n  <label for=\"pw\">Password</label>\n  <input type=\"password\" id=\"pw\" name=\"password\" placeholder=\"Your password\">\n</form>\n",
	})
}
