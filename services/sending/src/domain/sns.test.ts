import { describe, expect, it } from "vitest";
import { isSnsCertificateUrl, isSnsSubscribeUrl, refusalOf, snsHostOf, type SnsMessage } from "./sns.js";

const TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses";
const CERT = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem";
const now = new Date("2030-01-01T12:00:00Z");
const message = (over: Partial<SnsMessage> = {}): SnsMessage => ({
  Type: "Notification",
  MessageId: "m",
  TopicArn: TOPIC,
  Message: "{}",
  Timestamp: now.toISOString(),
  SignatureVersion: "2",
  Signature: "sig",
  SigningCertURL: CERT,
  ...over,
});

describe("SNS messages", () => {
  it("derives SNS's host from the topic's partition and region", () => {
    expect(snsHostOf(TOPIC)).toBe("sns.eu-west-1.amazonaws.com");
    expect(snsHostOf("arn:aws-cn:sns:cn-north-1:123456789012:t")).toBe("sns.cn-north-1.amazonaws.com.cn");
    expect(snsHostOf("arn:aws-us-gov:sns:us-gov-west-1:123456789012:t.fifo")).toBe("sns.us-gov-west-1.amazonaws.com");
    expect(snsHostOf("arn:aws:sqs:eu-west-1:123456789012:t")).toBeNull();
    expect(snsHostOf("arn:aws:sns:eu-west-1:1234:t")).toBeNull();
  });

  it("accepts only SNS's certificate URL in the topic's region over https", () => {
    expect(isSnsCertificateUrl(CERT, TOPIC)).toBe(true);
    for (const url of [
      CERT.replace("https:", "http:"),
      CERT.replace("eu-west-1", "us-east-1"),
      CERT.replace("amazonaws.com", "amazonaws.com.evil.example"),
      CERT.replace("sns.", "sns.evil."),
      CERT.replace(".com/", ".com:8443/"),
      CERT.replace("https://", "https://user@"),
      `${CERT}?a=1`,
      `${CERT}#x`,
      CERT.replace(".pem", ".txt"),
      "https://sns.eu-west-1.amazonaws.com/other/SimpleNotificationService-x.pem",
      "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-..%2F.pem",
      "not a url",
    ]) {
      expect(isSnsCertificateUrl(url, TOPIC), url).toBe(false);
    }
  });

  it("follows only confirmation links of the topic itself", () => {
    const url = `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=t`;
    expect(isSnsSubscribeUrl(url, TOPIC)).toBe(true);
    expect(isSnsSubscribeUrl(url.replace(TOPIC, `${TOPIC}2`), TOPIC)).toBe(false);
    expect(isSnsSubscribeUrl(url.replace("ConfirmSubscription", "Unsubscribe"), TOPIC)).toBe(false);
    expect(isSnsSubscribeUrl(url.replace("eu-west-1.amazonaws", "us-east-1.amazonaws"), TOPIC)).toBe(false);
    expect(isSnsSubscribeUrl("https://sns.eu-west-1.amazonaws.com/x?Action=ConfirmSubscription", TOPIC)).toBe(false);
  });

  it("refuses, before any signature work, other topics, stale or future timestamps, version 1 and foreign certificates", () => {
    const topics = new Set([TOPIC]);
    const hours = (n: number) => new Date(now.getTime() + n * 3_600_000).toISOString();
    expect(refusalOf(message(), topics, now)).toBeNull();
    expect(refusalOf(message({ Timestamp: hours(-0.99) }), topics, now)).toBeNull();
    expect(refusalOf(message({ TopicArn: "arn:aws:sns:eu-west-1:123456789012:other" }), topics, now)).toBe("topic");
    expect(refusalOf(message(), new Set(), now)).toBe("topic");
    expect(refusalOf(message({ Timestamp: hours(-1.01) }), topics, now)).toBe("timestamp");
    expect(refusalOf(message({ Timestamp: hours(1.01) }), topics, now)).toBe("timestamp");
    expect(refusalOf(message({ Timestamp: "soon" }), topics, now)).toBe("timestamp");
    expect(refusalOf(message({ SignatureVersion: "1" }), topics, now)).toBe("signature_version");
    expect(refusalOf(message({ SigningCertURL: "https://evil.example/x.pem" }), topics, now)).toBe("certificate_url");
    // the topic is checked first, so a foreign topic never reaches a certificate
    expect(refusalOf(message({ TopicArn: "arn:aws:sns:eu-west-1:999999999999:ses", SignatureVersion: "1", Timestamp: "x" }), topics, now)).toBe("topic");
  });
});
